/**
 * Postings throughput (src/engine/postings + src/engine/search scorers).
 *
 * Measured over one synthetic 1,000,000-doc segment (seeded mulberry32, seed 7):
 *  - AND / OR of two term postings at 1 % and 10 % density (IntersectCursor / UnionCursor, counting matches);
 *  - top-10 BM25 collection over a term present in every doc (TermScorer + TopScoreCollector);
 *  - exact phrase matching of two 10 % terms whose docs carry 1–4 positions each;
 *  - full `match` queries (OR and AND of two terms, BM25, top-10) through the shard search loop, over the
 *    segment in memory and over the same segment written to disk (block cache warm: the steady state).
 * Reported as ns per doc scanned (sum of the input postings lengths) besides tinybench's ops/s.
 * Baseline in the same run: the native roaring bitmap (CRoaring) and/or cardinality of the same sets, which
 * is the floor for plain set algebra without scoring or positions.
 *
 * Run: node --import tsx bench/postings.bench.ts   (about 20 s; `--quick` shortens each task)
 */
import { Bench } from 'tinybench';
import { ArrayCursor, IntersectCursor, NO_MORE_DOCS, UnionCursor } from '../src/engine/postings/cursor.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bitmapOf, type Bitmap } from '../src/engine/codec/roaring.ts';
import { MemoryFieldPostings, MemorySegment } from '../src/engine/postings/memory-segment.ts';
import { ByteColumn } from '../src/engine/codec/byte-column.ts';
import { IdTable } from '../src/engine/postings/id-table.ts';
import { encodeNorm } from '../src/engine/postings/norms.ts';
import { AnalyzerRegistry } from '../src/engine/analysis/analyzers.ts';
import { FieldInfos } from '../src/engine/indexing/field-infos.ts';
import { IndexReader } from '../src/engine/search/index-reader.ts';
import { BlockCache } from '../src/engine/segments/block-cache.ts';
import { DiskSegment } from '../src/engine/segments/disk-segment.ts';
import { writeSegment } from '../src/engine/segments/segment-writer.ts';
import { searchShard } from '../src/engine/search/shard-search.ts';
import { parseSearchBodyText } from '../src/engine/search/search-request.ts';
import { mulberry32 } from './support/mulberry32.ts';

const N = 1_000_000;
const quick = process.argv.includes('--quick');
const TASK_MS = quick ? 300 : 1500;

const rnd = mulberry32(7);

function sample(density: number): Uint32Array {
  const out: number[] = [];
  for (let d = 0; d < N; d++) if (rnd() < density) out.push(d);
  return Uint32Array.from(out);
}

// Terms: a1/b1 at 1 %, a10/b10 at 10 %, all in every doc. Positions: a10 then b10 adjacent in ~half the docs.
const lists: Record<string, Uint32Array> = { a1: sample(0.01), a10: sample(0.1), all: Uint32Array.from({ length: N }, (_, i) => i), b1: sample(0.01), b10: sample(0.1) };
const terms = Object.keys(lists).sort();
const docStart = new Uint32Array(terms.length + 1);
let total = 0;
terms.forEach((t, i) => { docStart[i] = total; total += lists[t].length; });
docStart[terms.length] = total;
const docs = new Uint32Array(total);
const freqs = new Uint32Array(total);
const posStart = new Uint32Array(total + 1);
const positions: number[] = [];
const lengths = new Uint32Array(N);
for (let d = 0; d < N; d++) lengths[d] = 5 + Math.floor(rnd() * 60);
terms.forEach((t, i) => {
  const l = lists[t];
  for (let j = 0; j < l.length; j++) {
    const p = docStart[i] + j;
    docs[p] = l[j];
    const f = 1 + Math.floor(rnd() * 4);
    freqs[p] = f;
    posStart[p] = positions.length;
    const base = t === 'b10' ? 1 : 0;
    for (let k = 0; k < f; k++) positions.push(base + k * 10 + (t === 'b10' && rnd() < 0.5 ? 1 : 0));
  }
});
posStart[total] = positions.length;
const norms = new Uint8Array(N);
for (let d = 0; d < N; d++) norms[d] = encodeNorm(lengths[d]);
const fp = new MemoryFieldPostings(terms, docStart, docs, freqs, posStart, Uint32Array.from(positions), norms, N, lengths.reduce((a, b) => a + b, 0));
// Ids "0".."N-1", empty sources, no nested docs: only the postings matter here.
const ids = new ByteColumn(), sources = new ByteColumn(), empty = new Uint8Array(0);
const liveIds = new IdTable(ids, N);
for (let d = 0; d < N; d++) { ids.setString(d, String(d)); sources.set(d, empty); liveIds.set(String(d), d); }
const seg = new MemorySegment('_0', N, {
  ids, liveIds, parents: new Int32Array(N).fill(-1), pathNames: [''], pathIds: new Uint16Array(N), sources, routings: new Map(),
  seqNos: new Float64Array(N), versions: new Float64Array(N).fill(1), primaryTerms: new Float64Array(N).fill(1),
}, new Map([['body', fp]]), new Map(), new Map(), new Map());
const infos = new FieldInfos({ properties: { body: { type: 'text' } } });
const analyzers = new AnalyzerRegistry({});
const reader = new IndexReader([seg], [null], infos, analyzers);
const dir = mkdtempSync(join(tmpdir(), 'postings-bench-'));
await writeSegment(dir, '_1', [{ seg, live: null }], { sync: false });
const diskReader = new IndexReader([DiskSegment.open(dir, '_1', new BlockCache(256 << 20))], [null], infos, analyzers);

const cur = (t: string): ArrayCursor => fp.cursor(fp.termId(t));
function count(c: { next(): number }): number { let n = 0; while (c.next() !== NO_MORE_DOCS) n++; return n; }
let sink = 0;

const bm = (t: string): Bitmap => bitmapOf(lists[t]);
const rb = { a1: bm('a1'), b1: bm('b1'), a10: bm('a10'), b10: bm('b10') };
const searchIn = (r: IndexReader, body: unknown): number => searchShard(r, parseSearchBodyText(JSON.stringify(body)), { index: 'b', nowMs: 0, noFetch: true }).total;
const search = (body: unknown): number => searchIn(reader, body);
const searchDisk = (body: unknown): number => searchIn(diskReader, body);

const scanned: Record<string, number> = {
  'AND 1%': lists.a1.length + lists.b1.length, 'OR 1%': lists.a1.length + lists.b1.length,
  'AND 10%': lists.a10.length + lists.b10.length, 'OR 10%': lists.a10.length + lists.b10.length,
  'roaring and 1% (baseline)': lists.a1.length + lists.b1.length, 'roaring or 1% (baseline)': lists.a1.length + lists.b1.length,
  'roaring and 10% (baseline)': lists.a10.length + lists.b10.length, 'roaring or 10% (baseline)': lists.a10.length + lists.b10.length,
  'top-10 BM25 over 1M-doc term': N, 'phrase "a10 b10"': lists.a10.length + lists.b10.length,
  'match OR 10% top-10 BM25': lists.a10.length + lists.b10.length, 'match AND 10% top-10 BM25': lists.a10.length + lists.b10.length,
  'match OR 1% top-10 BM25': lists.a1.length + lists.b1.length,
  'disk: match OR 10% top-10 BM25': lists.a10.length + lists.b10.length, 'disk: match AND 10% top-10 BM25': lists.a10.length + lists.b10.length,
  'disk: phrase "a10 b10"': lists.a10.length + lists.b10.length,
};

const bench = new Bench({ time: TASK_MS, warmupTime: 200 });
bench
  .add('AND 1%', () => { sink += count(new IntersectCursor([cur('a1'), cur('b1')])); })
  .add('OR 1%', () => { sink += count(new UnionCursor([cur('a1'), cur('b1')])); })
  .add('AND 10%', () => { sink += count(new IntersectCursor([cur('a10'), cur('b10')])); })
  .add('OR 10%', () => { sink += count(new UnionCursor([cur('a10'), cur('b10')])); })
  .add('roaring and 1% (baseline)', () => { sink += rb.a1.andCardinality(rb.b1); })
  .add('roaring or 1% (baseline)', () => { sink += rb.a1.orCardinality(rb.b1); })
  .add('roaring and 10% (baseline)', () => { sink += rb.a10.andCardinality(rb.b10); })
  .add('roaring or 10% (baseline)', () => { sink += rb.a10.orCardinality(rb.b10); })
  .add('top-10 BM25 over 1M-doc term', () => { sink += search({ query: { term: { body: 'all' } } }); })
  .add('phrase "a10 b10"', () => { sink += search({ query: { match_phrase: { body: 'a10 b10' } } }); })
  .add('match OR 10% top-10 BM25', () => { sink += search({ query: { match: { body: 'a10 b10' } } }); })
  .add('match AND 10% top-10 BM25', () => { sink += search({ query: { match: { body: { query: 'a10 b10', operator: 'and' } } } }); })
  .add('match OR 1% top-10 BM25', () => { sink += search({ query: { match: { body: 'a1 b1' } } }); })
  .add('disk: match OR 10% top-10 BM25', () => { sink += searchDisk({ query: { match: { body: 'a10 b10' } } }); })
  .add('disk: match AND 10% top-10 BM25', () => { sink += searchDisk({ query: { match: { body: { query: 'a10 b10', operator: 'and' } } } }); })
  .add('disk: phrase "a10 b10"', () => { sink += searchDisk({ query: { match_phrase: { body: 'a10 b10' } } }); });

await bench.run();
const rows = bench.tasks.map((t) => {
  const res = t.result as unknown as { latency: { mean: number }; throughput: { mean: number } };
  const meanMs = res.latency.mean;
  return { task: t.name, 'ops/s': Math.round(res.throughput.mean), 'mean ms': meanMs.toFixed(3), 'ns/doc scanned': ((meanMs * 1e6) / scanned[t.name]).toFixed(2) };
});
console.table(rows);
rmSync(dir, { recursive: true, force: true });
if (sink === 0) console.log('(sink)');
