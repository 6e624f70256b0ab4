/**
 * Matcher selection over 1 M series in the TSDB label index (src/engine/tsdb/postings.ts, roaring bitmaps).
 *
 * Data (deterministic): series i has __name__ = metric_(i % 1000), instance = host_(i / 1000 % 100),
 * job = job_(i % 10), code = one of 200/201/404/500/503 by i % 5, shard = i / 100000 — 1 M series, 5 labels.
 * Measured: LabelIndex.select for typical selectors (equality, conjunctions, regex, negative matchers),
 * reported as selections/s and the number of series selected.
 * Baseline (same run): a linear scan of the 1 M label sets applying the matchers (what the index avoids).
 * Run: node --import tsx bench/tsdb-postings.bench.ts   (about 25 s incl. building the index)
 */
import { Bench } from 'tinybench';
import { MATCH_EQUAL, MATCH_NOT_EQUAL, MATCH_NOT_REGEXP, MATCH_REGEXP, newMatcher } from '../src/engine/tsdb/api.ts';
import type { Labels, Matcher } from '../src/engine/tsdb/api.ts';
import { getLabel } from '../src/engine/tsdb/labels.ts';
import roaring from 'roaring';
import { LabelIndex, type Bitmap } from '../src/engine/tsdb/postings.ts';

const { RoaringBitmap32 } = roaring;

const N = 1_000_000;
const CODES = ['200', '201', '404', '500', '503'];
const t0 = performance.now();
const index = new LabelIndex();
const all: Labels[] = new Array(N);
// Bulk build (refs per pair collected first, one bitmap per pair): the same bitmaps LabelIndex.add makes, in
// a fraction of the set-up time.
const pairs = new Map<string, Map<string, number[]>>();
for (let i = 0; i < N; i++) {
  const ls = [
    { name: '__name__', value: `metric_${i % 1000}` },
    { name: 'code', value: CODES[i % 5] },
    { name: 'instance', value: `host_${Math.floor(i / 1000) % 100}` },
    { name: 'job', value: `job_${i % 10}` },
    { name: 'shard', value: String(Math.floor(i / 100000)) },
  ];
  all[i] = ls;
  for (const l of ls) {
    let vals = pairs.get(l.name);
    if (!vals) pairs.set(l.name, vals = new Map());
    let refs = vals.get(l.value);
    if (!refs) vals.set(l.value, refs = []);
    refs.push(i);
  }
}
for (const [name, vals] of pairs) {
  const out = new Map<string, Bitmap>();
  for (const [v, refs] of vals) out.set(v, new RoaringBitmap32(Uint32Array.from(refs)));
  index.byName.set(name, out);
}
index.all.addRange(0, N);
console.log(`built index of ${N} series in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const m = newMatcher;
const cases: [string, Matcher[]][] = [
  ['metric_42', [m(MATCH_EQUAL, '__name__', 'metric_42')]],
  ['metric_42{code="200"}', [m(MATCH_EQUAL, '__name__', 'metric_42'), m(MATCH_EQUAL, 'code', '200')]],
  ['{job=~"job_[0-4]"}', [m(MATCH_REGEXP, 'job', 'job_[0-4]')]],
  ['{__name__=~"metric_1.*",instance!="host_3"}', [m(MATCH_REGEXP, '__name__', 'metric_1.*'), m(MATCH_NOT_EQUAL, 'instance', 'host_3')]],
  ['{code!~"2.."} (negative only)', [m(MATCH_NOT_REGEXP, 'code', '2..')]],
  ['metric_7{instance="host_9",job="job_7"}', [m(MATCH_EQUAL, '__name__', 'metric_7'), m(MATCH_EQUAL, 'instance', 'host_9'), m(MATCH_EQUAL, 'job', 'job_7')]],
];

let sink = 0;
const bench = new Bench({ time: 600, warmupTime: 100, iterations: 5, warmupIterations: 1 });
const sizes = new Map<string, number>();
for (const [name, ms] of cases) {
  sizes.set(name, index.select(ms).size);
  bench.add(name, () => { sink += index.select(ms).size; });
}
bench.add('baseline: scan 1M label sets for metric_42{code="200"}', () => {
  const ms = cases[1][1];
  let n = 0;
  for (let i = 0; i < N; i++) {
    let ok = true;
    for (const x of ms) if (!x.matches(getLabel(all[i], x.name))) { ok = false; break; }
    if (ok) n++;
  }
  sink += n;
});
await bench.run();
console.table(bench.tasks.map((t) => {
  const mean = (t.result as unknown as { latency: { mean: number } }).latency.mean;
  return { selector: t.name, 'selections/s': Math.round(1000 / mean), 'ms/selection': +mean.toFixed(3), series: sizes.get(t.name) ?? '' };
}));
if (sink === -1) console.log('');
