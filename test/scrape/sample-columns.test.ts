/**
 * The scrape loop's reused sample columns, and the columnar sink path: a sink with `appendColumns` receives
 * exactly the samples an object sink receives (values, staleness markers, report series), by series id in
 * the loop's series table, one id per label set.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SampleColumns } from '../../src/engine/scrape/sample-columns.ts';
import type { IngestSample, SampleSink } from '../../src/engine/scrape/sample-sink.ts';
import { ScrapeLoop } from '../../src/engine/scrape/scrape-loop.ts';
import { loadConfig } from '../../src/engine/scrape/config.ts';
import { buildTargets } from '../../src/engine/scrape/target.ts';
import { formatSeries } from '../../src/engine/exposition/exposition.ts';
import { STALE_NAN } from '../../src/engine/tsdb/api.ts';
import { SeriesTable } from '../../src/engine/scrape/series-table.ts';

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
const bitsOf = (v: number): string => { F64[0] = v; return `${U32[1]}:${U32[0]}`; };

test('columns grow past their first capacity, keep NaN payloads, and decode labels once per series', () => {
  const table = new SeriesTable();
  const c = new SampleColumns(table);
  for (let i = 0; i < 1000; i++) {
    const sid = table.intern([{ name: '__name__', value: `m${i % 300}` }]);
    c.push(sid, i * 10, i === 7 ? STALE_NAN : i / 3);
  }
  assert.equal(c.n, 1000);
  const s = c.toSamples();
  assert.equal(s.length, 1000);
  for (let i = 0; i < 1000; i++) {
    assert.deepEqual(s[i].labels, [{ name: '__name__', value: `m${i % 300}` }]);
    assert.equal(s[i].t, i * 10);
    assert.equal(bitsOf(s[i].v), bitsOf(i === 7 ? STALE_NAN : i / 3));
  }
  assert.equal(s[301].labels, s[1].labels, 'samples of one series share the decoded array');
  assert.deepEqual(c.labels(5), [{ name: '__name__', value: 'm5' }]);
  c.clear();
  assert.equal(c.n, 0);
  assert.deepEqual(c.toSamples(), []);
});

/** Records what it is given in object form; with `columnar`, takes columns and checks one id per label set. */
class RecordingSink implements SampleSink {
  batches: { key: string; t: number; bits: string }[][] = [];
  idsOk = true;
  private readonly ids = new Map<string, number>();
  constructor(readonly columnar: boolean) {
    if (!columnar) this.appendColumns = undefined;
  }
  async append(samples: IngestSample[]): Promise<void> {
    this.batches.push(samples.map((s) => ({ key: formatSeries(s.labels), t: s.t, bits: bitsOf(s.v) })));
  }
  appendColumns?(c: SampleColumns): Promise<void> {
    for (let i = 0; i < c.n; i++) {
      const key = formatSeries(c.labels(i)), id = this.ids.get(key);
      if (id !== undefined && id !== c.sids[i]) this.idsOk = false;
      this.ids.set(key, c.sids[i]);
    }
    return this.append(c.toSamples());
  }
}

test('a columnar sink receives the same samples as an object sink, one series id per label set', async () => {
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
  assert.ok(columnar.idsOk, 'a label set keeps its series id from scrape to scrape');
  assert.ok(got[1].some((s) => s.key === 'a{instance="127.0.0.1:9",job="j",x="2"}' && s.bits === bitsOf(STALE_NAN)));
  assert.equal(got[2].filter((s) => s.bits === bitsOf(STALE_NAN)).length, 2); // a{x="1"} and b; c carried its own timestamp
});
