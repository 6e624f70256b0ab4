import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../store/lmdb.ts';
import { WORKFLOW_COMMIT_DB, WORKFLOW_COMMIT_KEY, WORKFLOW_META_KEY, WORKFLOW_STATE_VERSION } from '../codec/format-ids.ts';
import { CorruptionError } from '../errors.ts';
import { CommitLog, decodeCommit, encodeCommit } from './commit-log.ts';
import { WorkflowEngine } from './engine.ts';
import { failNextWrite } from '../../../test/support/fail-next-write.ts';
import type { KvWrite } from './kv.ts';
import { LmdbKv } from './lmdb-kv.ts';
import type { Meta } from './store.ts';
import { encodeValue } from './values.ts';

function inTempDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-wflog-'));
    try { await fn(dir); } finally { rmSync(dir, { recursive: true, force: true }); }
  };
}

const put = (space: string, key: string, v: unknown): KvWrite => ({ space, key, value: encodeValue(v) });
const guard = (kv: LmdbKv): number | undefined => kv.store.guardVersion(WORKFLOW_COMMIT_DB, WORKFLOW_COMMIT_KEY);

/** Appends commits to the log of `dir` without writing LMDB: what a crash after the log's fsync leaves. */
async function logOnly(dir: string, commits: { no: number; writes: KvWrite[] }[]): Promise<void> {
  const log = await CommitLog.open(dir, () => undefined);
  for (const c of commits) await log.append(c.no, c.writes);
  await log.close();
}

test('a commit record round-trips: spaces, UTF-8 keys, values and deletes', () => {
  const writes: KvWrite[] = [put('runs', 'r1', { a: 1 }), { space: 'ix_timers_due', key: 'k\u001fé✓😀', value: null }, put('meta', 'meta', 7)];
  const c = decodeCommit(encodeCommit(42, writes), 'test');
  assert.equal(c.no, 42);
  assert.deepEqual(c.writes.map((w) => [w.space, w.key, w.value === null ? null : Buffer.from(w.value).toString('hex')]),
    writes.map((w) => [w.space, w.key, w.value === null ? null : Buffer.from(w.value).toString('hex')]));
  assert.throws(() => decodeCommit(encodeCommit(1, writes).subarray(0, 20), 'test'), CorruptionError);
});

test('a commit record has the documented layout whether its keys are ASCII or not', () => {
  // ASCII keys are copied by hand and the others through the UTF-8 encoder: both must give the same bytes.
  const keys = ['170\u001fc1\u001fch1', '', 'é', 'abcé', 'é-abc', '\u007f\u0080', 'x'.repeat(300), '😀z'];
  const writes: KvWrite[] = keys.map((key, i) => ({ space: i % 2 ? 'contact_channel_state' : 'ix_timers_due', key, value: i % 3 ? Buffer.from([i, 1, 2]) : null }));
  const want: Buffer[] = [Buffer.alloc(12)];
  want[0].writeDoubleLE(7, 0);
  want[0].writeUInt32LE(writes.length, 8);
  for (const w of writes) {
    const key = Buffer.from(w.key, 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32LE(key.length);
    const vlen = Buffer.alloc(4);
    vlen.writeInt32LE(w.value === null ? -1 : w.value.length);
    want.push(Buffer.from([w.space.length]), Buffer.from(w.space, 'latin1'), len, key, vlen, Buffer.from(w.value ?? []));
  }
  assert.equal(Buffer.from(encodeCommit(7, writes)).toString('hex'), Buffer.concat(want).toString('hex'));
});

test('a commit acknowledged by the log but missing from LMDB (a crash before LMDB wrote it) is applied at the next open', inTempDir(async (dir) => {
  let kv = await LmdbKv.openLogged(dir);
  await kv.commit([put('s', 'a', 1)]);
  await kv.close();
  await logOnly(dir, [{ no: 2, writes: [put('s', 'b', 2), { space: 's', key: 'a', value: null }] }, { no: 3, writes: [put('s', 'c', 3)] }]);

  kv = await LmdbKv.openLogged(dir);
  assert.equal(guard(kv), 3, 'LMDB holds every logged commit');
  assert.equal(kv.get('s', 'a'), undefined);
  assert.equal(kv.get('s', 'b'), 2);
  assert.equal(kv.get('s', 'c'), 3);
  assert.deepEqual(readdirSync(CommitLog.dir(dir)), [], 'the replayed log is deleted once LMDB has flushed it');
  await kv.commit([put('s', 'd', 4)]);
  await kv.applied();
  assert.equal(kv.get('s', 'd'), 4);
  assert.equal(guard(kv), 4, 'commits count on from the replayed ones');
  await kv.close();
}));

test('records LMDB already has are skipped; a commit missing from both is corruption', inTempDir(async (dir) => {
  let kv = await LmdbKv.openLogged(dir);
  await kv.commit([put('s', 'a', 1)]);
  await kv.commit([put('s', 'a', 2)]);
  await kv.close();
  // Commit 2 again (LMDB has it: skipped, not applied over later state), then 4 without 3.
  await logOnly(dir, [{ no: 2, writes: [put('s', 'a', 99)] }, { no: 4, writes: [put('s', 'x', 1)] }]);
  await assert.rejects(LmdbKv.openLogged(dir), CorruptionError);
  await logOnly(dir, []);
  rmSync(CommitLog.dir(dir), { recursive: true });
  await logOnly(dir, [{ no: 2, writes: [put('s', 'a', 99)] }]);
  kv = await LmdbKv.openLogged(dir);
  assert.equal(kv.get('s', 'a'), 2);
  await kv.close();
}));

test('without the log, an environment that has one refuses to open (its newest commits would be missed)', inTempDir(async (dir) => {
  const kv = await LmdbKv.openLogged(dir);
  await kv.commit([put('s', 'a', 1)]);
  await kv.close();
  await logOnly(dir, [{ no: 2, writes: [put('s', 'b', 2)] }]);
  assert.throws(() => LmdbKv.open(dir), { code: 'INTERNAL' });
}));

test('commits are readable once applied, and survive a close and reopen; the log is empty after a clean close', inTempDir(async (dir) => {
  let kv = await LmdbKv.openLogged(dir);
  const engine = new WorkflowEngine({ kv });
  for (let i = 0; i < 5; i++) engine.st.inboundEvents.set(`1\u001fev-${i}`, i);
  await engine.flush();
  assert.equal(engine.st.inboundEvents.get('1\u001fev-3'), 3, 'read from the commit snapshot or from LMDB');
  await kv.close();
  assert.deepEqual(readdirSync(CommitLog.dir(dir)), []);
  kv = await LmdbKv.openLogged(dir);
  assert.equal(kv.get('inbound_events', '1\u001fev-4'), 4);
  assert.equal((kv.get('meta', WORKFLOW_META_KEY) as Meta).layout, WORKFLOW_STATE_VERSION);
  await kv.close();
}));

test('layout 4 (no commit log) opens with the log: its records are read and the first commit sets layout 5', inTempDir(async (dir) => {
  // As a layout-4 build left it: meta record, a record, the commit guard at 3; no commit-log directory.
  const st = Store.open(dir);
  const meta: Meta = { layout: 4, seq: { run: 7 }, appliedLow: 0, appliedAbove: [], clock: null, partition: 0, partitions: 1 };
  st.db<Meta>('wf2_meta').putSync(WORKFLOW_META_KEY, meta);
  st.db<number>('wf2_inbound_events').putSync('1\u001fev-1', 5);
  await st.close();
  let kv = LmdbKv.open(dir);
  await kv.commit([put('x', 'k', 1)]);
  await kv.commit([put('x', 'k', 2)]);
  await kv.close();

  kv = await LmdbKv.openLogged(dir);
  const engine = new WorkflowEngine({ kv });
  assert.equal(engine.st.state.layout, 5);
  assert.equal(engine.st.inboundEvents.get('1\u001fev-1'), 5);
  engine.st.inboundEvents.set('1\u001fev-2', 6);
  await engine.flush();
  await kv.close();
  kv = await LmdbKv.openLogged(dir);
  assert.equal(guard(kv), 3, 'the commit guard counts on');
  assert.equal((kv.get('meta', WORKFLOW_META_KEY) as Meta).layout, 5);
  assert.equal(kv.get('inbound_events', '1\u001fev-2'), 6);
  assert.equal(kv.get('x', 'k'), 2);
  await kv.close();
}));

test('a commit the log refuses never reaches LMDB, even when LMDB has room for it', inTempDir(async (dir) => {
  let kv = await LmdbKv.openLogged(dir);
  await kv.commit([put('s', 'a', 1)]);
  await failNextWrite(); // the log's next write fails as on a full disk; LMDB's file still has room
  await assert.rejects(kv.commit([put('s', 'b', 2)]));
  // Settles once LMDB took the commit (or it was never to): LMDB is written behind the log.
  await kv.applied().catch(() => undefined);
  assert.equal(kv.get('s', 'b'), undefined, 'the refused commit is not readable');
  await kv.close().catch(() => undefined);
  kv = await LmdbKv.openLogged(dir);
  assert.equal(kv.get('s', 'a'), 1);
  assert.equal(kv.get('s', 'b'), undefined, 'nor after a reopen');
  await kv.close();
}));
