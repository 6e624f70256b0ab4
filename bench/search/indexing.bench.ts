/**
 * Search-index indexing throughput (src/engine/search ShardIndex + src/engine/postings SegmentBuilder).
 *
 * Measured: one iteration = a fresh `ShardIndex` indexing N (20,000) pre-parsed ~1 KB log-like documents
 * (loadtest/support/es-docs.ts, xorshift seed 42, dynamic mapping as the documents service derives it),
 * refreshing after every 1,000 (as a `_bulk` body per refresh), so segment building and merging are included.
 * Reported as docs/s. Baseline in the same run: the standard analyzer alone over the same docs' text fields
 * (the floor: tokenizing is the part indexing cannot skip).
 *
 * Run: node --import tsx bench/search/indexing.bench.ts   (about 15 s; `--quick` uses 5,000 docs, `--docs=N` N docs)
 */
import { Bench } from 'tinybench';
import { dynamicUpdate, NEED_LOSSLESS } from '../../src/engine/documents/dynamic.ts';
import { parseLossless } from '../../src/engine/documents/source.ts';
import { mergeMapping } from '../../src/engine/documents/mapping.ts';
import type { MappingJson } from '../../src/engine/search/api.ts';
import { AnalyzerRegistry } from '../../src/engine/analysis/analyzers.ts';
import { TokenBuf } from '../../src/engine/analysis/token-buf.ts';
import { ScratchIndex } from '../../test/support/scratch-index.ts';
import { makeDoc, rng } from '../../loadtest/support/es-docs.ts';

const quick = process.argv.includes('--quick');
const docsArg = process.argv.find((a) => a.startsWith('--docs='));
const N = docsArg ? Number(docsArg.slice(7)) : quick ? 5_000 : 20_000;
const PER_REFRESH = 1000;

const r = rng(42);
const docs: Record<string, unknown>[] = [];
let mapping: MappingJson = {};
for (let i = 0; i < N; i++) {
  const text = makeDoc(i, r);
  const doc = JSON.parse(text) as Record<string, unknown>;
  let delta: MappingJson | null;
  try { delta = dynamicUpdate(mapping, '_doc', doc); } catch (e) {
    if (e !== NEED_LOSSLESS) throw e;
    delta = dynamicUpdate(mapping, '_doc', parseLossless(text) as Record<string, unknown>);
  }
  if (delta) mapping = mergeMapping(mapping, delta);
  docs.push(doc);
}

const bench = new Bench({ iterations: 3, time: 0, warmupIterations: 1, warmupTime: 0 });
// CPU time per iteration besides wall time: on a shared machine it is far less disturbed by other load.
const cpuMs: Record<string, number[]> = { index: [], baseline: [] };
const cpuOf = (t0: NodeJS.CpuUsage): number => { const u = process.cpuUsage(t0); return (u.user + u.system) / 1000; };
bench.add(`ShardIndex.index + refresh/${PER_REFRESH}, ${N} docs`, () => {
  const t0 = process.cpuUsage();
  const x = new ScratchIndex();
  for (let i = 0; i < N; i++) {
    x.add(String(i), docs[i], mapping);
    if ((i + 1) % PER_REFRESH === 0) x.index.refresh();
  }
  x.index.refresh();
  if (x.index.stats().roots !== N) throw new Error(`indexed ${x.index.stats().roots} of ${N}`);
  cpuMs.index.push(cpuOf(t0));
  void x.close();
});
const standard = new AnalyzerRegistry().get('standard')!;
const tokens = new TokenBuf();
bench.add(`baseline: standard analyzer over message + path, ${N} docs`, () => {
  const t0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    standard.analyze(docs[i].message as string, tokens.clear());
    standard.analyze(docs[i].path as string, tokens.clear());
  }
  cpuMs.baseline.push(cpuOf(t0));
});

await bench.run();
const median = (xs: number[]): number => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
bench.tasks.forEach((t, i) => {
  const res = t.result as unknown as { latency: { p50: number; mean: number } };
  const cpu = median(cpuMs[i === 0 ? 'index' : 'baseline'].slice(-3));
  console.log(`${t.name}: ${Math.round(N / (res.latency.p50 / 1000))} docs/s wall, ${Math.round(N / (cpu / 1000))} docs/s per CPU-second (medians of 3 runs)`);
});
