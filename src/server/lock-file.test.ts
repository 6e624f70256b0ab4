import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLock, LOCK_FILE_NAME } from './lock-file.ts';
import { EngineError } from '../engine/errors.ts';

test('a lock is clean on a fresh directory and not when it took over one left by a dead process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-lock-'));
  try {
    const first = acquireLock(dir);
    assert.equal(first.clean, true);
    first.release();
    assert.equal(existsSync(join(dir, LOCK_FILE_NAME)), false);
    // A process that has exited (and been reaped): its lock is stale, as after kill -9.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(join(dir, LOCK_FILE_NAME), `${dead}\n`);
    const taken = acquireLock(dir);
    assert.equal(taken.clean, false);
    taken.release();
    // A live owner (the parent of this process) is never taken over.
    writeFileSync(join(dir, LOCK_FILE_NAME), `${process.ppid}\n`);
    assert.throws(() => acquireLock(dir), (e) => e instanceof EngineError && e.code === 'LOCKED');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
