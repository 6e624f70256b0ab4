/**
 * The scrape loop's reused sample columns, and the columnar sink path: a sink with `appendColumns` and
 * `seriesHandle` receives exactly the samples an object sink receives (values, staleness markers, report
 * series), each with the handle the sink gave for its series.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SampleColumns } from '../../src/engine/scrape/sample-columns.ts';
import type { IngestSample, SampleSink } from '../../src/engine/scrape/sample-sink.ts';
import { ScrapeLoop } from '../../src/engine/scrape/scrape-loop.ts';
import { loadConfig } from '../../src/engine/scrape/config.ts';
import { buildTargets } from '../../src/engine/scrape/target.ts';
import { formatSeries } from '../../src/engine/exposition/exposition.ts';
import { STALE_NAN, type Labels } from '../../src/engine/tsdb/api.ts';

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
const bitsOf = (v: number): string => { F64[0] = v; return `${U32[1]}:${U32[0]}`; };

test('columns grow past their first capacity, keep NaN payloads and drop series references on clear', () => {
  const c = new SampleColumns();
  const ls: Labels[] = [];
  for (let i = 0; i < 1000; i++) {
    const l = Object.freeze([{ name: '__name__', value: `m${i}` }]);
    ls.push(l);
    c.push(l, i % 2 ? { h: i } : null, i * 10, i === 7 ? STALE_NAN : i / 3);
  }
  assert.equal(c.n, 1000);
  const s = c.toSamples();
  assert.equal(s.length, 1000);
  for (let i = 0; i < 1000; i++) {
    assert.equal(s[i].labels, ls[i]);
    assert.equal(s[i].t, i * 10);
    assert.equal(bitsOf(s[i].v), bitsOf(i === 7 ? STALE_NAN : i / 3));
  }
  assert.deepEqual(c.handles[3], { h: 3 });
  c.clear();
  assert.equal(c.n, 0);
  assert.ok(c.labels.every((l) => l.length === 0), 'no labels kept after clear');
  assert.ok(c.handles.every((h) => h === null), 'no handles kept after clear');
  assert.deepEqual(c.toSamples(), []);
});

/** Records what it is given in object form; with `columnar`, takes columns and hands out handles. */
class RecordingSink implements SampleSink {
  batches: { key: string; t: number; bits: string }[][] = [];
  handlesOk = true;
  private readonly handles = new Map<string, object>();
  constructor(readonly columnar: boolean) {
    if (!columnar) { this.appendColumns = undefined; this.seriesHandle = undefined; }
  }
  async append(samples: IngestSample[]): Promise<void> {
    this.batches.push(samples.map((s) => ({ key: formatSeries(s.labels), t: s.t, bits: bitsOf(s.v) })));
  }
  appendColumns?(c: SampleColumns): Promise<void> {
    for (let i = 0; i < c.n; i++) {
      const h = c.handles[i];
      if (h !== null && h !== this.handles.get(formatSeries(c.labels[i]))) this.handlesOk = false;
    }
    return this.append(c.toSamples());
  }
  seriesHandle?(labels: Labels): unknown {
    const h = { key: formatSeries(labels) };
    this.handles.set(h.key, h);
    return h;
  }
}

test('a columnar sink receives the same samples as an object sink, with its handles', async () => {
  const bodies = [
    'a{x="1"} 1\na{x="2"} 2\nb 3\n',
    'a{x="1"} 4\nb 5\nb 6\nc 7 1700000000123\n', // a{x="2"} goes stale; a duplicate b is dropped
    'broken{ 1\n', // fails: everything of the previous scrape goes stale
    'a{x="1"} 8\n',
  ];
  const run = async (sink: RecordingSink) => {
    const cfg = loadConfig('scrape_configs:\n  - job_name: j\n    static_configs: [{targets: ["127.0.0.1:9"]}]\n', '').scrapeConfigs[0];
    const target = buildTargets(cfg, cfg.staticConfigs).active[0];
    let round = 0;
    const loop = new ScrapeLoop(target, cfg, {
      sink, now: () => 1_700_000_000_000 + round * 1000,
      get: async () => ({ status: 200, statusText: 'OK', contentType: 'text/plain; version=0.0.4', body: Buffer.from(bodies[round++]) }),
    });
    for (let i = 0; i < bodies.length; i++) await loop.scrapeOnce();
    // Report series carry the scrape duration, which differs between runs.
    return sink.batches.map((b) => b.filter((s) => !s.key.startsWith('scrape_duration_seconds')));
  };
  const columnar = new RecordingSink(true);
  const got = await run(columnar);
  const want = await run(new RecordingSink(false));
  assert.deepEqual(got, want);
  assert.ok(columnar.handlesOk, 'every handle passed back is the one the sink gave for that series');
  assert.ok(got[1].some((s) => s.key === 'a{instance="127.0.0.1:9",job="j",x="2"}' && s.bits === bitsOf(STALE_NAN)));
  assert.equal(got[2].filter((s) => s.bits === bitsOf(STALE_NAN)).length, 2); // a{x="1"} and b; c carried its own timestamp
});
