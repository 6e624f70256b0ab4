#!/usr/bin/env node
/**
 * Compiles `src/` to plain JavaScript in `dist/src/` (one .js file per .ts file, same tree, assets copied), so
 * that `bin/tessera` and its worker threads start without tsx's loader. Under tsx every thread transpiles
 * the sources again, keeps them and their source maps, and routes each import through the loader's hooks:
 * about 35 MB of resident memory per thread and most of the start-up time (docs/benchmarks.md).
 *
 * Runs as the `prepare` script (so `npm install`/`npm ci` build it) and as `npm run build`. Plain JS on
 * purpose: it must run before anything is compiled. `bin/tessera` uses `dist/` only while it is not older
 * than any file of `src/` (see `dist-freshness.mjs`); otherwise it runs the sources through tsx.
 */
import { build } from 'esbuild';
import { cpSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestSourceMtime, STAMP_FILE } from './dist-freshness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const out = join(root, 'dist');
// Built beside and renamed into place, so a server starting meanwhile never sees half a tree.
const tmp = join(root, `dist.tmp-${process.pid}`);

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

const result = await build({
  entryPoints: sources, outdir: join(tmp, 'src'), outbase: src, bundle: false, format: 'esm', platform: 'node',
  target: 'node20', write: false, logLevel: 'warning',
});
// Relative specifiers keep their `.ts` extension in the output (no bundling); they name the .js files now.
// Also covers `new URL('../workers/shard.ts', import.meta.url)`, the worker entry files.
const TS_SPECIFIER = /(['"`])(\.{1,2}\/[^'"`\n]*?)\.ts\1/g;
for (const f of result.outputFiles) {
  mkdirSync(dirname(f.path), { recursive: true });
  writeFileSync(f.path, f.text.replace(TS_SPECIFIER, '$1$2.js$1'));
}
for (const a of assets) cpSync(a, join(tmp, 'src', relative(src, a)));
// `src/server/prom/scrape-routes.ts` reads the version from `../../../package.json`.
cpSync(join(root, 'package.json'), join(tmp, 'package.json'));
writeFileSync(join(tmp, STAMP_FILE), JSON.stringify({ newestSourceMtimeMs: newest, files: sources.length }) + '\n');
rmSync(out, { recursive: true, force: true });
renameSync(tmp, out);
console.log(`tessera: compiled ${sources.length} files to dist/`);

