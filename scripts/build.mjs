#!/usr/bin/env node
/**
 * Compiles `src/` to plain JavaScript in `dist/src/`, bundled per thread entry, so that `bin/tessera` and its
 * worker threads start without tsx's loader and without loading hundreds of modules. Under tsx every thread
 * transpiles the sources again, keeps them and their source maps, and routes each import through the loader's
 * hooks: about 35 MB of resident memory per thread and most of the start-up time. Compiled one file per source,
 * each thread still spent most of its start in Node's ESM loader (a resolve, stat, read and link per module, ~440
 * of them): one bundle per entry, split into shared chunks, cut that (docs/benchmarks.md, issue 11).
 *
 * Entries: `cli/main.ts` (bin/tessera), and every module the sources name as `new URL('….ts', import.meta.url)`
 * (worker threads, lazily imported task areas). Literal `import('./….ts')`s become their own chunks. Code shared
 * by several entries lands in one chunk under `dist/src/chunks/`, so each module is still evaluated once per
 * thread (a class has one identity). A module's `import.meta.url` is rewritten to the URL its own file would have
 * in `dist/src/` (`src/server/prom/ui-routes.ts` → `dist/src/server/prom/ui-routes.js`), so assets found beside
 * a module (copied into the same tree) and the worker URLs resolve as before. Source maps are written beside
 * (`node --enable-source-maps` maps stack traces back to `src/`).
 *
 * Runs as the `prepare` script (so `npm install`/`npm ci` build it) and as `npm run build`. Plain JS on
 * purpose: it must run before anything is compiled. `bin/tessera` uses `dist/` only while it is not older
 * than any file of `src/` (see `dist-freshness.mjs`); otherwise it runs the sources through tsx.
 */
import { build } from 'esbuild';
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestSourceMtime, STAMP_FILE } from './dist-freshness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const out = join(root, 'dist');
// Built beside and renamed into place, so a server starting meanwhile never sees half a tree.
const tmp = join(root, `dist.tmp-${process.pid}`);
const outSrc = join(tmp, 'src');

const sources = [];
const assets = [];
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.test.ts')) continue;
    else if (e.name.endsWith('.ts')) sources.push(p);
    else assets.push(p);
  }
};
walk(src);
const newest = newestSourceMtime(src);

// Modules loaded by URL rather than imported: worker entries and lazily loaded areas.
const URL_ENTRY = /new URL\((['"`])(\.{1,2}\/[^'"`\n]*?\.ts)\1,\s*import\.meta\.url\)/g;
const entries = new Set([join(src, 'cli/main.ts')]);
for (const s of sources) {
  for (const m of readFileSync(s, 'utf8').matchAll(URL_ENTRY)) entries.add(join(dirname(s), m[2]));
}

// `import.meta.url` of a module becomes a marker naming its file, replaced below with that file's URL in
// dist/ computed from the output file it ended up in.
const MARK = 'tessera-module-url:';
const moduleUrl = {
  name: 'module-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const own = relative(src, args.path).split(sep).join('/').replace(/\.ts$/, '.js');
      return { contents: text.replaceAll('import.meta.url', JSON.stringify(MARK + own)), loader: 'ts' };
    });
  },
};

const result = await build({
  entryPoints: [...entries], outdir: outSrc, outbase: src, entryNames: '[dir]/[name]', chunkNames: 'chunks/[name]-[hash]',
  bundle: true, splitting: true, packages: 'external', format: 'esm', platform: 'node', target: 'node20',
  // Error classes name themselves after their class (`new.target.name`); bundling may rename colliding ones.
  keepNames: true, sourcemap: 'linked', write: false, logLevel: 'warning', plugins: [moduleUrl],
});
const MARKED = new RegExp(`"${MARK}([^"]+)"`, 'g');
// keepNames gives every named function its name by `Object.defineProperty` when it is created, ~0.3 µs each:
// for the arrow functions a request makes (uWS callbacks, replies) a few µs per request on the HTTP thread
// (docs/benchmarks.md, issue 15). Names are kept for what needs them (classes: the error classes name
// themselves after their class) and for plain functions; arrow functions (no `prototype`) go without.
const NAME_HELPER = 'var __name = (target, value) => __defProp(target, "name", { value, configurable: true });';
const NAME_HELPER_CLASSES = 'var __name = (target, value) => typeof target !== "function" || "prototype" in target ? __defProp(target, "name", { value, configurable: true }) : target;';
let nameHelpers = 0;
// Relative specifiers that stayed in the output (the URL entries) keep their `.ts` extension; they name .js now.
const TS_SPECIFIER = /(['"`])(\.{1,2}\/[^'"`\n]*?)\.ts\1/g;
for (const f of result.outputFiles) {
  mkdirSync(dirname(f.path), { recursive: true });
  if (!f.path.endsWith('.js')) { writeFileSync(f.path, f.contents); continue; }
  const here = dirname(f.path);
  let text = f.text.replace(MARKED, (_, own) => {
    let rel = relative(here, join(outSrc, own)).split(sep).join('/');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `new URL(${JSON.stringify(rel)}, import.meta.url).href`;
  }).replace(TS_SPECIFIER, '$1$2.js$1');
  if (text.includes(MARK)) throw new Error(`${f.path}: an import.meta.url was left unresolved`);
  if (text.includes(NAME_HELPER)) { text = text.replace(NAME_HELPER, NAME_HELPER_CLASSES); nameHelpers++; }
  writeFileSync(f.path, text);
}
// esbuild emits its helper in one shared chunk; if its text changes, the replacement above must follow.
if (nameHelpers === 0) throw new Error('esbuild\'s __name helper was not found in the output (keepNames)');
for (const a of assets) cpSync(a, join(outSrc, relative(src, a)));
// `src/server/prom/scrape-routes.ts` reads the version from `../../../package.json`.
cpSync(join(root, 'package.json'), join(tmp, 'package.json'));
writeFileSync(join(tmp, STAMP_FILE), JSON.stringify({ newestSourceMtimeMs: newest, files: sources.length }) + '\n');
rmSync(out, { recursive: true, force: true });
renameSync(tmp, out);
const js = result.outputFiles.filter((f) => f.path.endsWith('.js')).length;
console.log(`tessera: compiled ${sources.length} files to dist/ (${entries.size} entries, ${js} files)`);
