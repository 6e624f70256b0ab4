/**
 * Worker adapters of the documents API, called directly: concurrent first calls for a shard share one open
 * (two instances would write the same translog), stale metadata is reported, and a reopen recovers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promises as fsp } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { docsTasks, shardRegistry } from '../../src/workers/docs-tasks.ts';
import { outcomeAt, type ItemOutcome, type WriteItem, type WriteOutcomes } from '../../src/workers/protocol.ts';
import { failNextWrite } from '../support/fail-next-write.ts';

const meta = { name: 't', type: '_doc', mapping: { properties: { a: { type: 'keyword' } } }, mappingVersion: 1, settings: { 'index.number_of_shards': '1' } };
const item = (id: string): WriteItem => ({ action: 'index', op: { id, source: Buffer.from(`{"a":"${id}"}`) } });

test('concurrent first writes to a shard open it once', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'docs-tasks-'));
  const init = { workerId: 0, workerCount: 1, dataDir, options: {} };
  try {
    const calls = Array.from({ length: 8 }, (_, i) => docsTasks['docs.write']({ uuid: 'u1', shard: 0, mv: 1, meta, items: [item(String(i))] }, init));
    const results = (await Promise.all(calls)) as WriteOutcomes[];
    assert.deepEqual(results.map((r) => (outcomeAt(r, 0) as { ok: { seqNo: number } }).ok.seqNo).sort(), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.equal(shardRegistry(init).get('u1', 0)!.stored.shard.shardIndex.version('7') !== null, true);
    assert.deepEqual(readdirSync(join(dataDir, 'es', 'indices', 'u1', '0', 'translog')), ['00000000']);
    assert.deepEqual(await docsTasks['docs.get']({ uuid: 'u1', shard: 0, mv: 2, id: '1' }, init), { stale: true }, 'newer mapping without meta');
    await docsTasks['docs.closeAll']();
    const again = (await docsTasks['docs.get']({ uuid: 'u1', shard: 0, mv: 1, meta, id: '7' }, init)) as { doc: { seqNo: number } };
    assert.equal(again.doc.seqNo >= 0, true);
    assert.equal(shardRegistry(init).get('u1', 0)!.stored.shard.shardIndex.version('7') !== null, true);
    await docsTasks['docs.closeAll']();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a write batch goes to the translog as one append: when it fails, every item that wrote a record fails and none is kept', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'docs-tasks-'));
  const init = { workerId: 0, workerCount: 1, dataDir, options: {} };
  const write = async (items: WriteItem[]): Promise<ItemOutcome[]> => {
    const out = (await docsTasks['docs.write']({ uuid: 'u2', shard: 0, mv: 1, meta, items }, init)) as WriteOutcomes;
    return items.map((_, i) => outcomeAt(out, i));
  };
  try {
    const first = await write([item('a'), item('b')]);
    assert.deepEqual(first.map((r) => 'ok' in r && r.ok.seqNo), [0, 1]);
    await failNextWrite();
    const noop: WriteItem = { action: 'update', op: { id: 'a', body: '{"doc":{"a":"a"}}' } };
    const refused = await write([item('c'), { action: 'delete', op: { id: 'b' } }, noop, item('d')]);
    assert.deepEqual(refused.map((r) => ('err' in r ? (r.err as { code?: string }).code : 'ok' in r ? r.ok.result : '?')), ['DISK_FULL', 'DISK_FULL', 'noop', 'DISK_FULL']);
    // The shard was dropped and reopens from disk: the refused batch left nothing behind, not even in part.
    const get = async (id: string) => ((await docsTasks['docs.get']({ uuid: 'u2', shard: 0, mv: 1, meta, id }, init)) as { doc: unknown }).doc;
    assert.notEqual(await get('b'), null);
    assert.equal(await get('c'), null);
    assert.equal(await get('d'), null);
    await docsTasks['docs.closeAll']();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a write batch lets go of its items once applied, while its translog append waits for the fsync', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const dataDir = mkdtempSync(join(tmpdir(), 'docs-tasks-'));
  const init = { workerId: 0, workerCount: 1, dataDir, options: {} };
  // Holds the next translog fsync until released, so the test looks at the batch while it waits for it.
  const probe = await fsp.open(join(dataDir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
  await probe.close();
  const orig = proto.datasync;
  let syncing!: () => void, release!: () => void;
  const inSync = new Promise<void>((r) => { syncing = r; });
  const released = new Promise<void>((r) => { release = r; });
  try {
    await docsTasks['docs.write']({ uuid: 'u3', shard: 0, mv: 1, meta, items: [item('warm')] }, init);
    proto.datasync = async function (this: unknown) { proto.datasync = orig; syncing(); await released; return orig.call(this); };
    // Built in a function of its own, so nothing in this test's frame refers to the batch's items.
    const start = (): { items: WeakRef<WriteItem[]>; reply: Promise<unknown> } => {
      const items = [item('a'), item('b'), item('c')];
      return { items: new WeakRef(items), reply: docsTasks['docs.write']({ uuid: 'u3', shard: 0, mv: 1, meta, items, refresh: 'true' }, init) };
    };
    const { items, reply } = start();
    await inSync;
    for (let i = 0; i < 10 && items.deref() !== undefined; i++) { await new Promise((r) => setImmediate(r)); gc(); }
    assert.equal(items.deref(), undefined, 'the items were held through the fsync');
    release();
    const out = (await reply) as WriteOutcomes;
    // What the batch needs after the fsync (its refresh parameter, its outcomes) did not go with the items.
    assert.deepEqual([0, 1, 2].map((i) => outcomeAt(out, i)).map((r) => 'ok' in r && [r.ok.result, r.ok.forcedRefresh]), [['created', true], ['created', true], ['created', true]]);
    const got = (await docsTasks['docs.get']({ uuid: 'u3', shard: 0, mv: 1, meta, id: 'b' }, init)) as { doc: { source: Uint8Array } };
    assert.equal(Buffer.from(got.doc.source).toString(), '{"a":"b"}');
    await docsTasks['docs.closeAll']();
  } finally {
    proto.datasync = orig;
    release();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
