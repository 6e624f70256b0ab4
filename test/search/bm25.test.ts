/**
 * BM25 golden scores. Expected values are computed here from the reference formula (elasticsearch.md §4.4,
 * a direct float32 transcription written for this test) over hand-made corpora, for one shard (engine level)
 * and for a 5-shard index over HTTP (per-shard statistics, murmur3 routing from Appendix B, and
 * dfs_query_then_fetch with global statistics).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ScratchIndex } from '../support/scratch-index.ts';
import { searchShard } from '../../src/engine/search/shard-search.ts';
import { parseSearchBodyText } from '../../src/engine/search/search-request.ts';
import { decodeNorm, encodeNorm } from '../../src/engine/postings/norms.ts';
import { startServer, type TestServer } from '../support/server.ts';

const F = Math.fround;
/** Lucene 7 BM25, written out independently of src/engine/postings/bm25.ts. */
function expected(tf: number, dl: number, df: number, docCount: number, sumTtf: number, boost = 1): number {
  const idf = F(Math.log(1 + (docCount - df + 0.5) / (df + 0.5)));
  const avgdl = F(sumTtf / docCount);
  const len = decodeNorm(encodeNorm(dl));
  const norm = F(F(1.2) * F(F(1 - F(0.75)) + F(F(F(0.75) * len) / avgdl)));
  const w = F(F(idf * boost) * F(F(1.2) + 1));
  return F(F(w * tf) / F(tf + norm));
}

/** Java Float.toString for the test's expectations (shortest round-trip digits). */
function javaFloat(x: number): string {
  for (let p = 1; p <= 9; p++) {
    const s = Number(x.toPrecision(p));
    if (F(s) === x) { const t = String(s); return t.includes('.') || t.includes('e') ? t : `${t}.0`; }
  }
  return String(x);
}

test('norm encoding matches the reference table', () => {
  const table: [number, number, number][] = [[23, 23, 23], [40, 40, 40], [41, 40, 40], [47, 43, 46], [48, 44, 48], [50, 45, 50], [100, 57, 96], [256, 70, 248], [1000, 87, 984], [10000, 113, 9240]];
  for (const [len, b, dec] of table) { assert.equal(encodeNorm(len), b, `encode ${len}`); assert.equal(decodeNorm(b), dec, `decode ${b}`); }
});

const corpus: Record<string, string> = {
  a: 'the quick brown fox jumps over the lazy dog',
  b: 'quick quick quick fox',
  c: 'lazy dogs sleep all day long in the sun near the river bank and never move at all',
  d: 'fox',
  e: Array.from({ length: 60 }, (_, i) => (i % 7 === 0 ? 'fox' : `w${i}`)).join(' '),
};
const lengths = Object.fromEntries(Object.entries(corpus).map(([k, v]) => [k, v.split(' ').length]));
const tf = (id: string, t: string): number => corpus[id].split(' ').filter((w) => w === t).length;

/**
 * The corpus in one shard; `onDisk` commits and reopens it first, so the same assertions hold for in-memory
 * segments (after a refresh) and on-disk segments (after a flush and restart).
 */
async function oneShard(onDisk: boolean): Promise<ScratchIndex> {
  const si = new ScratchIndex();
  for (const [id, body] of Object.entries(corpus)) si.add(id, { body }, { properties: { body: { type: 'text' } } });
  si.index.refresh();
  if (onDisk) await si.reopen();
  return si;
}

function run(si: ScratchIndex, body: string) {
  return searchShard(si.index.reader({ properties: { body: { type: 'text' }, f: { type: 'text' } } }), parseSearchBodyText(body), { index: 'i', nowMs: 0 });
}

for (const onDisk of [false, true]) {
const where = onDisk ? 'on-disk segments' : 'in-memory segments';

test(`the reference toy corpus scores 0.9808292 (${where})`, async () => {
  const si = new ScratchIndex();
  const m = { properties: { f: { type: 'text' } } };
  si.add('1', { f: 'x y z' }, m); si.add('2', { f: 'x y z t' }, m); si.add('3', { f: 'x y z w v' }, m);
  si.index.refresh();
  if (onDisk) await si.reopen();
  const r = run(si, '{"query":{"match":{"f":"t"}}}');
  assert.equal(javaFloat(r.hits[0].score), '0.9808292');
  await si.close();
});

test(`single-term scores on one shard equal the formula (${where})`, async () => {
  const si = await oneShard(onDisk);
  const docCount = 5, sumTtf = Object.values(lengths).reduce((a, b) => a + b, 0);
  for (const term of ['fox', 'quick', 'lazy', 'the']) {
    const r = run(si, JSON.stringify({ query: { match: { body: term } } }));
    const ids = Object.keys(corpus).filter((id) => tf(id, term) > 0);
    const df = ids.length;
    assert.equal(r.total, df);
    for (const h of r.hits) assert.equal(h.score, expected(tf(h.id, term), lengths[h.id], df, docCount, sumTtf), `${term} in ${h.id}`);
    const order = ids.map((id) => ({ id, s: expected(tf(id, term), lengths[id], df, docCount, sumTtf) })).sort((x, y) => y.s - x.s || x.id.localeCompare(y.id));
    assert.deepEqual(r.hits.map((h) => h.id), order.map((o) => o.id));
  }
  await si.close();
});

test(`multi-term OR sums clause scores in double then casts; boost multiplies (${where})`, async () => {
  const si = await oneShard(onDisk);
  const docCount = 5, sumTtf = Object.values(lengths).reduce((a, b) => a + b, 0);
  const r = run(si, JSON.stringify({ query: { match: { body: { query: 'fox lazy', boost: 2 } } } }));
  const dfFox = 4, dfLazy = 2;
  for (const h of r.hits) {
    let s = 0;
    if (tf(h.id, 'fox')) s += expected(tf(h.id, 'fox'), lengths[h.id], dfFox, docCount, sumTtf, 2);
    if (tf(h.id, 'lazy')) s += expected(tf(h.id, 'lazy'), lengths[h.id], dfLazy, docCount, sumTtf, 2);
    assert.equal(h.score, F(s), h.id);
  }
  await si.close();
});
}

// Appendix B: shard of 5 for ids 0..10.
const SHARD5: Record<string, number> = { 0: 0, 1: 3, 2: 2, 3: 4, 4: 2, 5: 1, 6: 2, 7: 3, 8: 1, 9: 1, 10: 1 };
const texts = ['red apple', 'green apple pie', 'red red wine', 'apple', 'red car', 'blue sky red sun', 'apple tree apple', 'red', 'green', 'apple red', 'dark red apple'];

let s: TestServer;
before(async () => {
  s = await startServer({ services: ['documents'], workers: 2 });
  await fetch(`${s.esUrl}/five`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings: { number_of_shards: 5 }, mappings: { _doc: { properties: { t: { type: 'text' } } } } }) });
  const lines = texts.flatMap((t, i) => [JSON.stringify({ index: { _id: String(i) } }), JSON.stringify({ t })]).join('\n') + '\n';
  await fetch(`${s.esUrl}/five/_doc/_bulk?refresh=true`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines });
});
after(async () => { await s?.destroy(); });

function shardStats(term: string, global: boolean) {
  const out = new Map<number, { docCount: number; sumTtf: number; df: number }>();
  texts.forEach((t, i) => {
    const sh = global ? 0 : SHARD5[i];
    const st = out.get(sh) ?? { docCount: 0, sumTtf: 0, df: 0 };
    const words = t.split(' ');
    st.docCount++; st.sumTtf += words.length; if (words.includes(term)) st.df++;
    out.set(sh, st);
  });
  return out;
}

for (const global of [false, true]) {
  test(`5 shards: ${global ? 'dfs_query_then_fetch global' : 'per-shard'} statistics, ES tie order`, async () => {
    const term = 'red';
    const res = await fetch(`${s.esUrl}/five/_search${global ? '?search_type=dfs_query_then_fetch' : ''}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ size: 20, query: { match: { t: term } } }) });
    const text = await res.text();
    const body = JSON.parse(text);
    const stats = shardStats(term, global);
    const want = texts.map((t, i) => ({ id: String(i), words: t.split(' ') })).filter((d) => d.words.includes(term)).map((d) => {
      const st = stats.get(global ? 0 : SHARD5[Number(d.id)])!;
      return { id: d.id, shard: SHARD5[Number(d.id)], score: expected(d.words.filter((w) => w === term).length, d.words.length, st.df, st.docCount, st.sumTtf) };
    }).sort((a, b) => b.score - a.score || a.shard - b.shard || Number(a.id) - Number(b.id));
    assert.equal(body.hits.total, want.length);
    assert.deepEqual(body.hits.hits.map((h: { _id: string }) => h._id), want.map((w) => w.id));
    for (const w of want) assert.match(text, new RegExp(`"_id":"${w.id}","_score":${javaFloat(w.score).replace('.', '\\.')}[,}]`));
  });
}
