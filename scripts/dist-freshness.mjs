/**
 * Whether `dist/` (written by `scripts/build.mjs`) still matches `src/`: it records the newest modification
 * time among the sources and their number when it is built; a source edited, added or removed since makes it
 * stale, and `bin/tessera` then runs the sources through tsx instead. A `git checkout` gives files new times,
 * so the check errs towards stale, never towards running old code.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const STAMP_FILE = 'build-stamp.json';

/** Newest mtime (ms) of the files under `dir`, test files excluded, and how many .ts sources there are. */
export function newestSourceMtime(dir) {
  return scan(dir).newest;
}

function scan(dir) {
  let newest = statSync(dir).mtimeMs; // a deleted file changes its directory's mtime
  let files = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name.endsWith('.test.ts')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      const sub = scan(p);
      if (sub.newest > newest) newest = sub.newest;
      files += sub.files;
      continue;
    }
    const m = statSync(p).mtimeMs;
    if (m > newest) newest = m;
    if (e.name.endsWith('.ts')) files++;
  }
  return { newest, files };
}

/** True when `distDir` was built from exactly the current `srcDir`. */
export function distIsFresh(distDir, srcDir) {
  let stamp;
  try { stamp = JSON.parse(readFileSync(join(distDir, STAMP_FILE), 'utf8')); } catch { return false; }
  const now = scan(srcDir);
  return stamp.newestSourceMtimeMs === now.newest && stamp.files === now.files;
}
