/**
 * Module boundaries from docs/architecture.md, checked on the import lines of every source file:
 * the engine never imports the server or the workers, and each third-party dependency with an adapter is
 * imported only by that adapter.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (p.endsWith('.ts') && !p.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const IMPORT_RE = /^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT_RE)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

const files = sources(join(ROOT, 'src')).map((f) => ({ rel: relative(ROOT, f), imports: importsOf(f) }));

const ADAPTERS: Record<string, string> = {
  lmdb: 'src/engine/store/lmdb.ts',
  snappy: 'src/engine/codec/snappy.ts',
  msgpackr: 'src/engine/codec/msgpack.ts',
  'uWebSockets.js': 'src/server/http.ts',
  // The pool, and the two worker entries (shard, query), which hand replies back with Piscina's `move`.
  piscina: 'src/server/pool.ts|src/workers/shard.ts|src/workers/query.ts',
  re2js: 'src/engine/regex/re2.ts',
  roaring: 'src/engine/codec/roaring.ts',
  'lossless-json': 'src/engine/codec/lossless-json.ts',
  yaml: 'src/engine/codec/yaml.ts',
  protobufjs: 'src/engine/remote/remote-write-codec.ts',
  '@node-rs/crc32': 'src/engine/codec/crc32c.ts',
  '@node-rs/jieba': 'src/engine/analysis/ik.ts',
  koffi: 'src/runtime/malloc-trim.ts',
  bcryptjs: 'src/server/web-gate.ts',
};

test('every runtime dependency in package.json has an adapter listed here (or is a tool: tsx, esbuild, uplot)', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const TOOLS = new Set(['tsx', 'esbuild', 'uplot']); // the TS loader and the build (scripts/build.mjs); the expression browser's assets, served as files
  const missing = Object.keys(pkg.dependencies).filter((d) => !(d in ADAPTERS) && !TOOLS.has(d));
  assert.deepEqual(missing, []);
});

test('src/engine imports neither src/server nor src/workers', () => {
  const bad = files.filter((f) => f.rel.startsWith('src/engine/'))
    .flatMap((f) => f.imports.filter((i) => /(^|\/)(server|workers)\//.test(i) && i.startsWith('.')).map((i) => `${f.rel} → ${i}`));
  assert.deepEqual(bad, []);
});

test('src/workers never imports src/server', () => {
  const bad = files.filter((f) => f.rel.startsWith('src/workers/'))
    .flatMap((f) => f.imports.filter((i) => i.startsWith('.') && /(^|\/)server\//.test(i)).map((i) => `${f.rel} → ${i}`));
  assert.deepEqual(bad, []);
});

for (const [pkg, owners] of Object.entries(ADAPTERS)) {
  test(`${pkg} is imported only by its adapter (${owners})`, () => {
    const allowed = new Set(owners.split('|'));
    const bad = files.filter((f) => !allowed.has(f.rel) && f.imports.some((i) => i === pkg || i.startsWith(`${pkg}/`))).map((f) => f.rel);
    assert.deepEqual(bad, []);
  });
}
