/**
 * LMDB's own consistency read, run on opening an environment whose last close was not clean (no
 * `STORE_CLEAN_CLOSE_FILE`: a crash, `kill -9`, power loss, or data written by a build before the marker): every
 * named database is read through once with a cursor, keys and values, as `mdb_dump` would. LMDB checks each page
 * it reaches (its type, its number against the file's end) — but on damage it aborts the process on an assertion
 * or faults on a wild pointer rather than returning an error (tried here: damaged page headers gave
 * `Assertion '!mc->mc_dbi || NUMKEYS(mp) > 1' failed` and SIGABRT, damaged page bodies SIGSEGV). So the read runs
 * in a child process: its death is turned into a CorruptionError naming the file and what to do, before the node
 * maps the file and serves from it.
 */
import { spawnSync } from 'node:child_process';
import { CorruptionError } from '../errors.ts';

/** The child: opens the environment read-only and reads every entry of every named database. */
const READ_THROUGH = `
const { open } = await import(process.argv[1]);
const root = open({ path: process.argv[2], readOnly: true, maxDbs: 128, encoding: 'binary' });
let entries = 0, bytes = 0;
for (const name of root.getKeys()) {
  const db = root.openDB({ name: String(name), encoding: 'binary' });
  for (const { key, value } of db.getRange()) { entries++; bytes += value.length; }
}
process.stdout.write(JSON.stringify({ entries, bytes }));
`;

export interface ReadThrough { entries: number; bytes: number }

/**
 * Reads every entry of the environment in directory `envDir` in a child process that loads lmdb-js from
 * `lmdbUrl`; throws CorruptionError naming `data.mdb` when LMDB fails or dies on it.
 */
export function readThroughLmdb(envDir: string, lmdbUrl: string): ReadThrough {
  const file = `${envDir}/data.mdb`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', READ_THROUGH, lmdbUrl, envDir], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status === 0) return JSON.parse(r.stdout) as ReadThrough;
  const how = r.error ? r.error.message : r.signal ? `killed by ${r.signal}` : `exit code ${r.status}`;
  const said = (r.stderr ?? '').trim().split('\n').filter((l) => l.trim() !== '').slice(-3).join(' / ');
  throw new CorruptionError(file, 0, `LMDB's consistency read after an unclean shutdown failed (${how}${said ? `: ${said}` : ''}); ` +
    `the file is damaged: restore this directory from a backup, or move it away to start with what it held lost`);
}
