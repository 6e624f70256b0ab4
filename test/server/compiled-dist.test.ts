/**
 * The compiled tree (`scripts/build.mjs` → `dist/`) and `bin/tessera`'s choice between it and the sources:
 * a copy of the project is built in a temporary directory, then `tessera --version` reports which one ran —
 * compiled while dist matches src, the sources through tsx once a source is edited, added or removed, or
 * when TESSERA_FROM_SOURCE=1. Whether every service works compiled is what the rest of the suite checks:
 * `npm ci` builds dist/ and the test servers start from it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error plain JS module without types (it runs before anything is compiled)
import { distIsFresh } from '../../scripts/dist-freshness.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function copyProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-dist-'));
  for (const p of ['bin', 'scripts', 'src', 'package.json']) cpSync(join(ROOT, p), join(dir, p), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const b = spawnSync(process.execPath, [join(dir, 'scripts/build.mjs')], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(b.status, 0, b.stderr);
  return dir;
}

function runs(dir: string, env: Record<string, string> = {}): string {
  const r = spawnSync(process.execPath, [join(dir, 'bin/tessera'), '--version'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
  assert.equal(r.status, 0, r.stderr);
  const line = r.stdout.split('\n').find((l) => l.startsWith('running: '));
  assert.ok(line, `no "running:" line in ${JSON.stringify(r.stdout)}`);
  return line.slice('running: '.length);
}

test('bin/tessera runs dist/ while it matches src/, and the sources otherwise', { timeout: 300_000 }, () => {
  const dir = copyProject();
  try {
    const dist = join(dir, 'dist'), src = join(dir, 'src');
    assert.equal(distIsFresh(dist, src), true);
    assert.equal(runs(dir), 'compiled dist/');
    assert.equal(runs(dir, { TESSERA_FROM_SOURCE: '1' }), 'TypeScript sources (tsx)');

    const edited = join(src, 'engine/errors.ts');
    const later = new Date(Date.now() + 5000);
    utimesSync(edited, later, later);
    assert.equal(distIsFresh(dist, src), false, 'an edited source makes dist stale');
    assert.equal(runs(dir), 'TypeScript sources (tsx)');

    spawnSync(process.execPath, [join(dir, 'scripts/build.mjs')], { timeout: 120_000 });
    assert.equal(runs(dir), 'compiled dist/', 'rebuilt');
    const added = join(src, 'engine/added-later.ts');
    writeFileSync(added, 'export const x = 1;\n');
    assert.equal(distIsFresh(dist, src), false, 'an added source makes dist stale');
    unlinkSync(added);
    spawnSync(process.execPath, [join(dir, 'scripts/build.mjs')], { timeout: 120_000 });
    assert.equal(distIsFresh(dist, src), true);
    unlinkSync(join(src, 'engine/codec/crc32c.ts'));
    assert.equal(distIsFresh(dist, src), false, 'a removed source makes dist stale');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
