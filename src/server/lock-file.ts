/**
 * One server per data directory. The lock file holds the owner's pid; it is created exclusively, and a
 * lock whose pid no longer runs (left by `kill -9`) is taken over. Node has no flock, so liveness of the
 * recorded pid is the test.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { EngineError, formatMessage } from '../engine/errors.ts';

export const LOCK_FILE_NAME = 'tessera.lock';

/** A held lock: `release` gives it up; `clean` is false when a lock left by a process that died was taken over. */
export interface DataDirLock { release(): void; clean: boolean }

export function acquireLock(dataDir: string): DataDirLock {
  const path = join(dataDir, LOCK_FILE_NAME);
  let clean = true;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      const release = (): void => { try { if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path); } catch { /* already gone */ } };
      return { release, clean };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (owner && owner !== process.pid && isAlive(owner)) {
        throw new EngineError('LOCKED', formatMessage('LOCKED', [dataDir, path]), { path, pid: owner });
      }
      unlinkSync(path); // stale: its owner is gone
      clean = false;
    }
  }
  throw new EngineError('LOCKED', formatMessage('LOCKED', [dataDir, path]), { path });
}

function isAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM'; }
}
