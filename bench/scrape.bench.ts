/**
 * Scrape ingestion cost on the main thread (src/engine/scrape), without network or storage.
 *
 * Measured, on one 50,000-series text-format body (~3.4 MB, like one target of the ingestion anchor in
 * docs/prometheus.md §5.3: counters with 3 labels, values changing every scrape):
 *  - parser: `ExpositionParser.next()` over the body's bytes reading the series range and `value` (the cache-hit path);
 *  - baseline (same run): a per-line regex parser extracting the same two fields — what the parser avoids;
 *  - scrape: a whole `ScrapeLoop.scrapeOnce()` in steady state (parse, per-target cache lookup, sample
 *    objects, staleness bookkeeping, report series) with an in-memory fetch and a no-op sink;
 *  - first scrape: the same with a cold cache (label parsing + target labels for every series).
 * Reported as samples/s (the Prometheus 2.42 anchor is about 1 M samples/s per core for the whole path).
 * Data: deterministic (series i has labels handler="/api/v{i%50}", code in 4 values, instance="i{i%250}").
 *
 * Run: node --import tsx bench/scrape.bench.ts   (about 15 s; `--quick` shortens each task)
 */
import { Bench } from 'tinybench';
import { ENTRY_EOF, ENTRY_SERIES, ExpositionParser } from '../src/engine/exposition/exposition-parser.ts';
import { ScrapeLoop } from '../src/engine/scrape/scrape-loop.ts';
import { loadConfig } from '../src/engine/scrape/config.ts';
import { buildTargets } from '../src/engine/scrape/target.ts';

const SERIES = 50_000;
const quick = process.argv.includes('--quick');
const TASK_MS = quick ? 300 : 2000;

function body(round: number): string {
  const lines: string[] = ['# HELP http_requests_total Requests.', '# TYPE http_requests_total counter'];
  const codes = ['200', '404', '500', '302'];
  for (let i = 0; i < SERIES; i++) {
    lines.push(`http_requests_total{handler="/api/v${i % 50}",code="${codes[i % 4]}",instance="i${i % 250}",n="${i}"} ${i * 3 + round}`);
  }
  return lines.join('\n') + '\n';
}

const text = body(0);
const bytes = Buffer.from(text);
let sink = 0;

const REGEX_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?)\s+(\S+)(?:\s+(\S+))?$/;

const cfg = loadConfig('scrape_configs:\n  - job_name: bench\n    static_configs: [{targets: ["127.0.0.1:9"]}]\n', '').scrapeConfigs[0];
const target = buildTargets(cfg, cfg.staticConfigs).active[0];
let round = 0;
const bodies = [Buffer.from(body(1)), Buffer.from(body(2))];
const get = async () => ({ status: 200, statusText: 'OK', contentType: 'text/plain; version=0.0.4', body: bodies[round++ & 1] });
const noSink = { append: async (s: unknown[]) => { sink += s.length; } };
const warm = new ScrapeLoop(target, cfg, { sink: noSink, now: () => 1_700_000_000_000 + round * 15_000, get });
await warm.scrapeOnce();

const bench = new Bench({ time: TASK_MS, iterations: 5, warmupTime: quick ? 100 : 500, warmupIterations: 2 });
bench
  .add('parser: next() + series range + value', () => {
    const p = new ExpositionParser(bytes, { openMetrics: false });
    for (let e = p.next(); e !== ENTRY_EOF; e = p.next()) if (e === ENTRY_SERIES) sink += p.value + p.seriesEnd - p.seriesStart;
  })
  .add('baseline: regex per line', () => {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i];
      if (l === '' || l[0] === '#') continue;
      const m = REGEX_LINE.exec(l);
      if (m) sink += Number(m[2]) + m[1].length;
    }
  })
  .add('scrape: steady state (cache hits)', async () => { await warm.scrapeOnce(); })
  .add('scrape: first scrape (cold cache)', async () => {
    const cold = new ScrapeLoop(target, cfg, { sink: noSink, now: () => 1_700_000_000_000, get });
    await cold.scrapeOnce();
  });

await bench.run();
const rows = bench.tasks.map((t) => {
  // Median, not mean: this machine is shared and a few descheduled iterations skew the mean.
  const r = t.result as unknown as { latency?: { p50: number } };
  const ms = r.latency?.p50 ?? NaN;
  return { task: t.name, 'ms/body (p50)': ms.toFixed(2), 'M samples/s': (SERIES / ms / 1000).toFixed(2) };
});
console.table(rows);
console.log(`body ${(text.length / 1e6).toFixed(1)} MB, ${SERIES} series; sink ${sink > 0 ? 'ok' : 'empty'}`);
