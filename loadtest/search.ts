/**
 * Search engine comparison, in-process, same run: Tessera's shard index (exact Lucene 7 BM25, top-10) vs
 * FlexSearch and MiniSearch (devDependencies, used only here).
 *
 * Corpus (deterministic, mulberry32 seed 1): N docs (argv[2], default 200,000) with a title (4–10 words) and a
 * body (20–60 words) drawn Zipf(s=1.07) from a fixed 50,000-word vocabulary, a keyword field (200 values), a
 * number and a date. Queries use word pairs of mid frequency (ranks 100–2,000):
 *   2-term match OR, 2-term match AND, match_phrase (a bigram that occurs in the corpus),
 *   bool{must match, filter range}, terms aggregation on the keyword field (size 10, over a 1-term match).
 * FlexSearch/MiniSearch run the closest equivalent (AND / OR of the two terms over title+body; they have no
 * phrase, range filter or aggregation, so those rows are Tessera only).
 * Reported: indexing docs/s, and per query p50/p99 latency in ms over Q runs (argv[3], default 300).
 *
 * Run: node --import tsx loadtest/search.ts [N] [Q]      (200k docs: about a minute on this machine)
 */
import FlexSearch from 'flexsearch';
import MiniSearch from 'minisearch';
import { ScratchIndex } from '../test/support/scratch-index.ts';
import { searchShard } from '../src/engine/search/shard-search.ts';
import { parseSearchBodyText } from '../src/engine/search/search-request.ts';
import { mulberry32 } from '../bench/support/mulberry32.ts';

const N = Number(process.argv[2] ?? 200_000);
const Q = Number(process.argv[3] ?? 300);
const VOCAB = 50_000;

const rnd = mulberry32(1);
const words = Array.from({ length: VOCAB }, (_, i) => `w${i.toString(36)}x`);
// Zipf sampling by inverse CDF over precomputed cumulative weights.
const cdf = new Float64Array(VOCAB);
{ let s = 0; for (let i = 0; i < VOCAB; i++) { s += 1 / Math.pow(i + 1, 1.07); cdf[i] = s; } for (let i = 0; i < VOCAB; i++) cdf[i] /= s; }
function zipf(): number { const u = rnd(); let lo = 0, hi = VOCAB - 1; while (lo < hi) { const m = (lo + hi) >> 1; if (cdf[m] < u) lo = m + 1; else hi = m; } return lo; }
const text = (min: number, max: number): string => { const n = min + Math.floor(rnd() * (max - min + 1)); const out: string[] = []; for (let i = 0; i < n; i++) out.push(words[zipf()]); return out.join(' '); };

interface Doc { id: string; title: string; body: string; tag: string; n: number; d: string }
const docs: Doc[] = [];
for (let i = 0; i < N; i++) {
  docs.push({ id: String(i), title: text(4, 10), body: text(20, 60), tag: `t${Math.floor(rnd() * 200)}`, n: Math.floor(rnd() * 1000), d: new Date(1_500_000_000_000 + Math.floor(rnd() * 3e10)).toISOString() });
}
const mapping = { properties: { title: { type: 'text' }, body: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'long' }, d: { type: 'date' } } };

function timeIt(label: string, fn: () => void): number {
  const t0 = performance.now(); fn(); const ms = performance.now() - t0;
  console.log(`${label}: ${(N / (ms / 1000)).toFixed(0)} docs/s (${(ms / 1000).toFixed(1)} s)`);
  return ms;
}

const tessera = new ScratchIndex({}, { bufferBytes: 64 << 20, autoMerge: true });
timeIt('tessera index+refresh', () => { for (const d of docs) tessera.add(d.id, d as unknown as Record<string, unknown>, mapping); tessera.index.refresh(); });
const flex = new FlexSearch.Document({ document: { id: 'id', index: ['title', 'body'] }, tokenize: 'strict' } as never) as unknown as { add(d: Doc): void; search(q: string, o: object): unknown[] };
timeIt('flexsearch index', () => { for (const d of docs) flex.add(d); });
const mini = new MiniSearch({ fields: ['title', 'body'], idField: 'id' });
timeIt('minisearch index', () => { mini.addAll(docs); });

const pairs: [string, string][] = [];
for (let i = 0; i < Q; i++) pairs.push([words[100 + Math.floor(rnd() * 1900)], words[100 + Math.floor(rnd() * 1900)]]);
const bigrams: string[] = [];
for (let i = 0; bigrams.length < Q; i++) { const w = docs[(i * 7919) % N].body.split(' '); const k = Math.floor(rnd() * (w.length - 1)); bigrams.push(`${w[k]} ${w[k + 1]}`); }

const reader = tessera.index.reader(mapping);
const run = (body: unknown): number => searchShard(reader, parseSearchBodyText(JSON.stringify(body)), { index: 'load', nowMs: Date.now(), noFetch: true }).total;

function measure(label: string, fn: (i: number) => unknown): void {
  for (let i = 0; i < Math.min(20, Q); i++) fn(i);
  const lat: number[] = [];
  for (let i = 0; i < Q; i++) { const t0 = performance.now(); fn(i); lat.push(performance.now() - t0); }
  lat.sort((a, b) => a - b);
  console.log(`${label.padEnd(44)} p50 ${lat[Math.floor(Q * 0.5)].toFixed(3)} ms   p99 ${lat[Math.floor(Q * 0.99)].toFixed(3)} ms`);
}

const both = (i: number): string => `${pairs[i][0]} ${pairs[i][1]}`;
measure('tessera match OR (title+body, BM25 top-10)', (i) => run({ query: { multi_match: { query: both(i), fields: ['title', 'body'], type: 'most_fields' } } }));
measure('tessera match OR (body, BM25 top-10)', (i) => run({ query: { match: { body: both(i) } } }));
measure('tessera match AND (body, BM25 top-10)', (i) => run({ query: { match: { body: { query: both(i), operator: 'and' } } } }));
measure('tessera match_phrase (body)', (i) => run({ query: { match_phrase: { body: bigrams[i] } } }));
measure('tessera bool must+range filter', (i) => run({ query: { bool: { must: { match: { body: pairs[i][0] } }, filter: { range: { n: { gte: 100, lt: 600 } } } } } }));
measure('tessera terms agg (size 10)', (i) => run({ size: 0, query: { match: { body: pairs[i][0] } }, aggs: { t: { terms: { field: 'tag' } } } }));
measure('flexsearch AND (title+body, limit 10)', (i) => flex.search(both(i), { limit: 10 }));
measure('flexsearch OR-ish (suggest, limit 10)', (i) => flex.search(both(i), { limit: 10, suggest: true }));
measure('minisearch AND (title+body)', (i) => mini.search(both(i), { combineWith: 'AND' }).slice(0, 10));
measure('minisearch OR (title+body)', (i) => mini.search(both(i), { combineWith: 'OR' }).slice(0, 10));
