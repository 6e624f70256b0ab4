import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { MappingJson } from '../search/api.ts';
import { EngineError } from '../errors.ts';
import { DocShard, type Translog } from './doc-shard.ts';
import { decodeTranslogOp } from './translog-record.ts';
import type { WriteResult } from './doc-shard-types.ts';
import { ScratchIndex } from '../../../test/support/scratch-index.ts';

test('a batch\'s record buffer is written over only after its append is durable', async () => {
  // A log that reads the records when it "writes" them: at the moment the test makes their append durable.
  const pending: { records: readonly { type: number; payload: Uint8Array }[]; done: () => void }[] = [];
  const written: string[][] = [];
  const log: Translog = {
    async append() { throw new Error('not in this test'); },
    appendBatch(records) { return new Promise<unknown>((resolve) => pending.push({ records, done: () => resolve(null) })); },
  };
  const x = new ScratchIndex();
  scratch.push(x);
  const s = new DocShard({ indexName: 'test', uuid: 'u', shard: 0, type: '_doc', mapping, index: x.index, translog: log });
  const batch = (ids: string[], n: number): Promise<unknown> => {
    s.beginBatch();
    for (const id of ids) res(s.indexNow({ id, source: src({ n, s: id.repeat(50) }) }));
    return s.endBatch();
  };
  const write = (i: number): void => {
    written.push(pending[i].records.map((r) => { const o = decodeTranslogOp(r.type, r.payload, 'test'); return `${o.id}:${Buffer.from(o.source!).toString()}`; }));
    pending[i].done();
  };
  const a = batch(['a1', 'a2', 'a3'], 1);
  const b = batch(['b1', 'b2'], 2); // while a is not durable: must not write over a's records
  write(0); await a;
  write(1); await b;
  const c = batch(['c1', 'c2', 'c3', 'c4'], 3); // now a's (or b's) buffer may be taken again
  write(2); await c;
  const expect = (ids: string[], n: number): string[] => ids.map((id) => `${id}:${JSON.stringify({ n, s: id.repeat(50) })}`);
  assert.deepEqual(written, [expect(['a1', 'a2', 'a3'], 1), expect(['b1', 'b2'], 2), expect(['c1', 'c2', 'c3', 'c4'], 3)]);
});

class MemTranslog implements Translog {
  records: { type: number; payload: Uint8Array }[] = [];
  appends = 0;
  async append(type: number, payload: Uint8Array): Promise<unknown> { this.appends++; this.records.push({ type, payload }); return null; }
  async appendBatch(records: readonly { type: number; payload: Uint8Array }[]): Promise<unknown> { this.appends++; this.records.push(...records); return null; }
}

const src = (o: unknown): Uint8Array => Buffer.from(JSON.stringify(o));
const mapping: MappingJson = { properties: { n: { type: 'long' }, tags: { type: 'keyword' }, s: { type: 'keyword' }, big: { type: 'long' }, d: { type: 'float' }, c: { type: 'long' }, l: { type: 'boolean' } } };

const scratch: ScratchIndex[] = [];
after(async () => { for (const x of scratch) await x.close(); });

function shard(): { s: DocShard; log: MemTranslog } {
  const x = new ScratchIndex();
  scratch.push(x);
  const log = new MemTranslog();
  return { s: new DocShard({ indexName: 'test', uuid: 'u', shard: 0, type: '_doc', mapping, index: x.index, translog: log }), log };
}

/** Top-level docs visible to searches. */
const visibleDocs = (s: DocShard): number => s.shardIndex.stats().roots;

const res = (r: unknown): WriteResult => { assert.ok(!('mappingUpdate' in (r as object))); return r as WriteResult; };
async function err(p: Promise<unknown>): Promise<EngineError> {
  try { await p; } catch (e) { if (e instanceof EngineError) return e; throw e; }
  assert.fail('expected error');
}

test('versions, seq_no, create conflicts and tombstones', async () => {
  const { s, log } = shard();
  assert.deepEqual(res(await s.index({ id: '1', source: src({ n: 1 }) })), { result: 'created', version: 1, seqNo: 0, primaryTerm: 1 });
  assert.equal(res(await s.index({ id: '1', source: src({ n: 2 }) })).result, 'updated');
  assert.equal((await err(s.index({ id: '1', source: src({ n: 3 }), create: true }))).message,
    '[_doc][1]: version conflict, document already exists (current version [2])');
  assert.equal((await err(s.index({ id: '1', source: src({ n: 3 }), version: 1 }))).message,
    '[_doc][1]: version conflict, current version [2] is different than the one provided [1]');
  assert.equal((await err(s.index({ id: '1', source: src({ n: 3 }), ifSeqNo: 0, ifPrimaryTerm: 1 }))).message,
    '[_doc][1]: version conflict, required seqNo [0], primary term [1]. current document has seqNo [1] and primary term [1]');
  assert.deepEqual(res(await s.delete({ id: '1' })), { result: 'deleted', version: 3, seqNo: 2, primaryTerm: 1 });
  assert.deepEqual(res(await s.delete({ id: 'nope' })), { result: 'not_found', version: 1, seqNo: 3, primaryTerm: 1 });
  assert.deepEqual(res(await s.index({ id: '1', source: src({ n: 4 }) })), { result: 'created', version: 4, seqNo: 4, primaryTerm: 1 });
  assert.equal(res(await s.index({ id: 'e', source: src({}), version: 10, versionType: 'external' })).version, 10);
  assert.match((await err(s.index({ id: 'e', source: src({}), version: 10, versionType: 'external' }))).message, /higher or equal to the one provided \[10\]/);
  assert.equal(log.records.length, 6);
  assert.equal(visibleDocs(s), 0);
  s.refresh();
  assert.equal(visibleDocs(s), 2);
  // Replaying the translog into a fresh shard rebuilds the same state; replaying it twice changes nothing.
  const copy = shard().s;
  for (const r of log.records) copy.replayRecord(r.type, r.payload);
  for (const r of log.records) copy.replayRecord(r.type, r.payload);
  const plain = (d: ReturnType<DocShard['getDoc']>) => d && { ...d, source: Buffer.from(d.source).toString() };
  for (const id of ['1', 'e', 'nope']) assert.deepEqual(plain(copy.getDoc(id)), plain(s.getDoc(id)), id);
  assert.equal(copy.maxSeqNo, s.maxSeqNo);
  assert.equal(Buffer.from(copy.getDoc('1')!.source).toString(), '{"n":4}');
});

test('dynamic fields come back as a mapping update before any write', async () => {
  const { s, log } = shard();
  const r = await s.index({ id: "1", source: src({ n: 1, x: "hello" }) });
  assert.deepEqual(r, { mappingUpdate: { properties: { x: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } } } } });
  assert.equal(log.records.length, 0);
  const bad = await err(s.index({ id: '1', source: Buffer.from('{"n":') }));
  assert.equal(bad.message, 'failed to parse');
});

test('updates: doc merge, noop, upsert, scripts', async () => {
  const { s } = shard();
  await s.index({ id: '1', source: Buffer.from('{"n":1,"tags":["a"],"big":72057594037927936,"d":1.0}') });
  assert.equal((await err(s.update({ id: '2', body: '{"doc":{"n":1}}' }))).message, '[_doc][2]: document missing');
  const noop = res(await s.update({ id: '1', body: '{"doc":{"n":1}}' }));
  assert.deepEqual([noop.result, noop.version], ['noop', 1]);
  const up = res(await s.update({ id: '1', body: '{"script":{"source":"ctx._source.n += params.k; ctx._source.tags.add(\'b\'); ctx._source.d += 1","params":{"k":2}}}' }));
  assert.deepEqual([up.result, up.version, up.seqNo], ['updated', 2, 1]);
  assert.equal(Buffer.from(s.getDoc('1')!.source).toString(), '{"n":3,"tags":["a","b"],"big":72057594037927936,"d":2.0}');
  const del = res(await s.update({ id: '1', body: '{"script":"if (ctx._source.n > 2) { ctx.op = \'delete\' } else { ctx.op = \'none\' }"}' }));
  assert.equal(del.result, 'deleted');
  const ups = res(await s.update({ id: '3', body: '{"doc":{"s":"x"},"doc_as_upsert":true}' }));
  assert.equal(ups.result, 'created');
  const npe = await err(s.update({ id: '3', body: '{"script":"ctx._source.count += 1"}' }));
  assert.equal(npe.message, 'failed to execute script');
  const c = npe.details.cause as { message: string; details: { cause: { code: string } } };
  assert.equal(c.message, 'runtime error');
  assert.equal(c.details.cause.code, 'DOC_SCRIPT_NULL_POINTER');
  const comp = await err(s.update({ id: '3', body: '{"script":"ctx._source.x = /re/"}' }));
  assert.equal((comp.details.cause as { message: string }).message, 'compile error');
  const str = res(await s.update({ id: '3', body: '{"script":"ctx._source.s = ctx._source.s + 1 + \'!\'; ctx._source.c = 7 / 2; ctx._source.l = ctx._source.containsKey(\'s\')"}' }));
  assert.equal(str.result, 'updated');
  assert.equal(Buffer.from(s.getDoc('3')!.source).toString(), '{"s":"x1!","c":3,"l":true}');
});

test('a write batch appends its records once, in order, when it ends', async () => {
  const { s, log } = shard();
  s.beginBatch();
  assert.throws(() => s.beginBatch(), /already open/);
  s.indexNow({ id: 'x', source: src({ n: 1 }) });
  s.indexNow({ id: 'y', source: src({ n: 2 }) });
  s.deleteNow({ id: 'x' });
  assert.equal(log.records.length, 0, 'nothing appended before the batch ends');
  assert.equal(s.getDoc('y')!.seqNo, 1, 'applied in memory at once');
  await s.endBatch();
  assert.equal(log.appends, 1);
  assert.deepEqual(log.records.map((r) => { const o = decodeTranslogOp(r.type, r.payload, 'test'); return [o.id, o.version, o.seqNo, o.source === null]; }), [['x', 1, 0, false], ['y', 1, 1, false], ['x', 2, 2, true]]);
  assert.throws(() => s.endBatch(), /no write batch/);
  await s.index({ id: 'z', source: src({ n: 3 }) });
  assert.equal(log.appends, 2, 'outside a batch each write appends on its own');
});
