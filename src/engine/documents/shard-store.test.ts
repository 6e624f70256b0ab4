import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BlockCache } from '../segments/block-cache.ts';
import { StoredShard, type ShardStoreOptions } from './shard-store.ts';
import type { WriteResult } from './doc-shard-types.ts';
import { Wal } from '../wal/index.ts';
import { pack } from '../codec/msgpack.ts';
import { DOC_TRANSLOG_DELETE_V1, DOC_TRANSLOG_INDEX_V1 } from '../codec/format-ids.ts';

const mapping = { properties: { n: { type: 'long' }, title: { type: 'text' }, tag: { type: 'keyword' }, kids: { type: 'nested', properties: { c: { type: 'keyword' } } } } };
const opts = { indexName: 'i', uuid: 'u', shard: 0, type: '_doc', mapping };
const store = (): ShardStoreOptions => ({ cache: new BlockCache(8 << 20), memory: null, indexSettings: {}, autoMerge: false });
const src = (n: number): Uint8Array => Buffer.from(`{"n":${n}}`);

test('flush commits segments and trims the translog; reopen = last commit + translog tail, nothing re-indexed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shard-store-'));
  try {
    let s = await StoredShard.open(dir, opts, store());
    for (let i = 0; i < 100; i++) await s.shard.index({ id: String(i), source: src(i) });
    await s.shard.delete({ id: '5' });
    await s.flush();
    assert.equal(s.shard.translogOps, 0);
    assert.ok(readdirSync(join(dir, 'index')).some((f) => f.startsWith('segments_')), 'a commit point');
    for (let i = 100; i < 150; i++) await s.shard.index({ id: String(i), source: src(i) });
    const r = (await s.shard.index({ id: '7', source: src(70) })) as WriteResult;
    assert.deepEqual([r.result, r.version, r.seqNo], ['updated', 2, 151]);
    await s.close();

    s = await StoredShard.open(dir, opts, store());
    assert.equal(s.shard.maxSeqNo, 151);
    const st = s.shard.stats(0);
    assert.equal(st.rootDocs, 149);
    assert.equal(Buffer.from(s.shard.getDoc('7')!.source).toString(), '{"n":70}');
    assert.equal(s.shard.getDoc('7')!.version, 2);
    assert.equal(s.shard.getDoc('5'), null);
    // Only the 51 translog operations after the commit were indexed again: they are the in-memory buffer.
    assert.equal(s.shard.shardIndex.segments().filter((x) => !x.onDisk).reduce((a, x) => a + x.docs, 0), 51);
    const again = (await s.shard.index({ id: '5', source: src(5) })) as WriteResult;
    // Elasticsearch 6 keeps delete tombstones in memory only: after a flush and a restart the id starts over.
    assert.deepEqual([again.result, again.version, again.seqNo], ['created', 1, 152]);
    await s.flush();
    await s.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a shard written by format 1 (shard.snap + translog) is converted on first open', async () => {
  const fixture = fileURLToPath(new URL('../../../test/fixtures/format/documents-v1/es/indices', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'shard-upgrade-'));
  try {
    cpSync(fixture, dir, { recursive: true });
    const uuid = readdirSync(dir)[0];
    const infos: string[] = [];
    const docs: number[] = [];
    for (const shard of [0, 1]) {
      const sdir = join(dir, uuid, String(shard));
      const s = await StoredShard.open(sdir, { ...opts, uuid, shard }, { ...store(), onInfo: (m) => infos.push(m) });
      assert.equal(existsSync(join(sdir, 'shard.snap')), false, 'the old snapshot is gone once converted');
      docs.push(s.shard.stats(0).rootDocs);
      if (s.shard.getDoc('100')) assert.equal(Buffer.from(s.shard.getDoc('100')!.source).toString(), '{"title":"after flush one","n":100}');
      await s.close();
      // A second open finds a normal commit and converts nothing.
      const again = await StoredShard.open(sdir, { ...opts, uuid, shard }, { ...store(), onInfo: (m) => infos.push(`again ${m}`) });
      assert.equal(again.shard.stats(0).rootDocs, docs[shard]);
      await again.close();
    }
    // 30 docs, 3 and 5 deleted, 4 written again with a routing (a second copy in the other shard), 100 added.
    assert.equal(docs[0] + docs[1], 30, 'what the format-1 server counted after its own restart');
    assert.ok(infos.some((m) => m.includes('converting format 1')));
    assert.ok(!infos.some((m) => m.startsWith('again')), 'converted once');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a translog written before translog records version 2 (msgpack arrays) replays, and later beside version-2 records', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shard-translog-v1-'));
  try {
    // What main 05fa469 left in a shard's translog before its first flush: index, index with routing, delete.
    const wal = await Wal.open({ dir: join(dir, 'translog') });
    await wal.append(DOC_TRANSLOG_INDEX_V1, pack(['a', 1, 0, 1, null, src(1), null]));
    await wal.append(DOC_TRANSLOG_INDEX_V1, pack(['b', 1, 1, 1, null, src(2), null]));
    await wal.append(DOC_TRANSLOG_INDEX_V1, pack(['c', 1, 2, 1, 'r1', src(3), null]));
    await wal.append(DOC_TRANSLOG_DELETE_V1, pack(['a', 2, 3, 1, null, null, 1_764_201_600_000]));
    await wal.close();
    let s = await StoredShard.open(dir, opts, store());
    assert.equal(s.shard.maxSeqNo, 3);
    assert.equal(s.shard.getDoc('a'), null);
    assert.equal(Buffer.from(s.shard.getDoc('b')!.source).toString(), '{"n":2}');
    assert.equal(s.shard.getDoc('c')!.routing, 'r1');
    // Appended now in version 2 after the old records: the next open replays both kinds in order.
    const r = (await s.shard.index({ id: 'b', source: src(20) })) as WriteResult;
    assert.deepEqual([r.result, r.version, r.seqNo], ['updated', 2, 4]);
    await s.close();
    s = await StoredShard.open(dir, opts, store());
    assert.deepEqual([s.shard.maxSeqNo, s.shard.getDoc('b')!.version, s.shard.stats(0).rootDocs, s.shard.getDoc('a')], [4, 2, 2, null]);
    assert.equal(Buffer.from(s.shard.getDoc('b')!.source).toString(), '{"n":20}');
    await s.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
