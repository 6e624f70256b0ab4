/**
 * LMDB's own consistency read, run on opening an environment whose last close was not clean (no
 * `STORE_CLEAN_CLOSE_FILE`: a crash, `kill -9`, power loss, or data written by a build before the marker): every
 * named database is read through once with a cursor, keys and values, as `mdb_dump` would. LMDB checks each page
 * it reaches (its type, its number against the file's end) — but on damage it aborts the process on an assertion
 * or faults on a wild pointer rather than returning an error (tried here: damaged page headers gave
 * `Assertion '!mc->mc_dbi || NUMKEYS(mp) > 1' failed` and SIGABRT, damaged page bodies SIGSEGV). So the read runs
 * in a child process, whose death becomes a CorruptionError naming the file and what to do.
 *
 * The read costs about 1 µs per entry plus 0.3 s to start the child (0.85 s for a workflow partition holding
 * 100,000 pending countdowns, 800,000 entries): it runs before the environment is opened for at most
 * `FOREGROUND_BUDGET_MS`, so a restart stays bounded, and a read that needs longer is done again by a child in
 * the background (`startReadThrough`), which reports damage when it finds it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { CorruptionError } from '../errors.ts';

/** How long an open waits for the consistency read before leaving it to the background. */
export const FOREGROUND_BUDGET_MS = 1000;

/**
 * The child: opens the environment as the Store does (read-only opens faulted on environments that lmdb-js had
 * written with overlapping syncs and that were cut by kill -9) and reads every entry of every named database.
 */
const READ_THROUGH = `
const { open } = await import(process.argv[1]);
const root = open({ path: process.argv[2], maxDbs: 128, encoding: 'binary' });
let entries = 0;
for (const name of root.getKeys()) {
  const db = root.openDB({ name: String(name), encoding: 'binary' });
  for (const { key, value } of db.getRange()) entries++;
}
await root.close();
process.stdout.write(String(entries));
`;

const childArgs = (envDir: string, lmdbUrl: string): string[] => ['--input-type=module', '-e', READ_THROUGH, lmdbUrl, envDir];

function damaged(envDir: string, how: string, stderr: string): CorruptionError {
  const said = stderr.trim().split('\n').filter((l) => l.trim() !== '').slice(-3).join(' / ');
  return new CorruptionError(`${envDir}/data.mdb`, 0, `LMDB's consistency read after an unclean shutdown failed (${how}${said ? `: ${said}` : ''}); ` +
    'the file is damaged: restore this directory from a backup, or move it away to start with what it held lost');
}

/**
 * Reads every entry of the environment in `envDir` in a child process that loads lmdb-js from `lmdbUrl`, for at
 * most `budgetMs`: true when the read finished, false when it was stopped at the budget. Throws CorruptionError
 * naming `data.mdb` when LMDB fails or dies on it.
 */
export function readThroughWithin(envDir: string, lmdbUrl: string, budgetMs: number): boolean {
  const r = spawnSync(process.execPath, childArgs(envDir, lmdbUrl), { encoding: 'utf8', maxBuffer: 1 << 20, timeout: budgetMs, killSignal: 'SIGKILL' });
  if (r.status === 0) return true;
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT') return false;
  throw damaged(envDir, r.error ? r.error.message : r.signal ? `killed by ${r.signal}` : `exit code ${r.status}`, r.stderr ?? '');
}

/** A background read-through; `stop` ends it unfinished (the environment is being closed). */
export interface BackgroundRead { stop(): void; readonly finished: boolean; readonly ended: Promise<void> }

/** `readThroughWithin` without a budget, in the background: `onDamage` gets the CorruptionError if it fails. */
export function startReadThrough(envDir: string, lmdbUrl: string, onDamage: (err: CorruptionError) => void): BackgroundRead {
  const child = spawn(process.execPath, childArgs(envDir, lmdbUrl), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '', finished = false, stopped = false;
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr = (stderr + d).slice(-4096); });
  const ended = new Promise<void>((resolve) => child.on('close', (code: number | null, signal: NodeJS.Signals | null) => {
    finished = code === 0;
    if (!finished && !stopped) onDamage(damaged(envDir, signal ? `killed by ${signal}` : `exit code ${code}`, stderr));
    resolve();
  }));
  return {
    stop(): void { if (child.exitCode === null && child.signalCode === null) { stopped = true; child.kill('SIGKILL'); } },
    get finished(): boolean { return finished; },
    ended,
  };
}
