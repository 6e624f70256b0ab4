/**
 * A workflow commit too large for LMDB's in-memory dirty list on a full disk (docs/architecture.md
 * "Durability"): LMDB spills pages to the data file mid-transaction, the spill fails, and the commit must
 * reject with DISK_FULL, after which the backend must close (a partition thread closes before it exits so the
 * main thread can restart it) and reopen with nothing of the failed commit. On a real 8 MiB tmpfs (mounted
 * here as root; skipped with a message otherwise), in a child process (commit-guard-scenario.ts says why).
 * Before the fix, close waited forever for the failed transaction's flush, which lmdb-js never settles.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mountSmallDisk } from '../support/small-disk.ts';

const disk = mountSmallDisk('tessera-wfspill-', '8m');
const { dir, skip } = disk;

after(() => disk.remove());

test('a commit that spills pages on a full disk fails with DISK_FULL and the backend closes', { skip, timeout: 120_000 }, async () => {
  const scenario = new URL('./lmdb-spill-scenario.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', scenario, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '', stderr = '';
  child.stdout.on('data', (b) => { stdout += b; });
  child.stderr.on('data', (b) => { stderr += b; });
  const code = await new Promise<number | null>((r) => child.on('exit', (c, sig) => r(c ?? (sig ? -1 : null))));
  assert.match(stderr, /mdb_page_spill/, 'the commit did not make LMDB spill pages (the test lost its point)');
  assert.equal(code, 0, `the scenario ended with ${code} (13: the backend's close never settled)\n${stderr.slice(-2000)}`);
  const r = JSON.parse(stdout.trim().split('\n').at(-1)!);
  assert.equal(r.big, 'DISK_FULL');
  assert.equal(r.before, 1);
  assert.equal(r.bigVisible, false, 'the failed commit is visible after a reopen');
  assert.equal(r.after, 3, 'the reopened backend commits once space is back');
});
