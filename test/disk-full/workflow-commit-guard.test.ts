/**
 * A workflow commit queued behind one that failed on a full disk must not land (docs/architecture.md
 * "Durability"). On a real 8 MiB tmpfs (mounted here as root; skipped with a message otherwise) filled up to
 * its last 512 KiB, a child process (commit-guard-scenario.ts) has a partition's LMDB backend start a 2 MiB
 * commit, which fails, and small commits queued in lmdb-js behind it — one per event turn while it is in
 * flight. None may be acknowledged or become readable, before or after a reopen: without the commit guard
 * lmdb-js runs them in the transactions after the failed one, where they fit, and they land. Once space is
 * back, a reopened backend commits again.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mountSmallDisk } from '../support/small-disk.ts';

const disk = mountSmallDisk('tessera-wfguard-', '8m');
const { dir, skip } = disk;

after(() => disk.remove());

test('a commit queued behind one that failed on a full disk writes nothing', { skip, timeout: 60_000 }, async () => {
  const scenario = new URL('./commit-guard-scenario.ts', import.meta.url).pathname;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', scenario, dir], { timeout: 50_000 });
  const r = JSON.parse(stdout.trim().split('\n').at(-1)!);
  assert.equal(r.big, 'DISK_FULL', 'the large commit fails on the full disk');
  assert.ok(r.queued > 0, 'no commit was queued behind the failed one');
  assert.deepEqual(r.acknowledged, [], `${r.acknowledged.length} of ${r.queued} commits queued behind the failed one were acknowledged`);
  assert.deepEqual(r.errors, ['DISK_FULL'], 'a refused commit reports the failure that refused it');
  assert.deepEqual(r.visible, [], 'commits queued behind the failed one are readable');
  assert.deepEqual(r.afterReopen.visible, [], 'commits queued behind the failed one are there after a reopen');
  assert.equal(r.afterReopen.big, false);
  assert.equal(r.afterReopen.before, 1);
  assert.equal(r.afterReopen.after, 3, 'the reopened backend commits once space is back');
});
