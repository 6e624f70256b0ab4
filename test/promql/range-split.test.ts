/**
 * Issue 12, "both cores": a long range query is evaluated as two halves of its steps on the two query threads
 * (`server/prom/range-split.ts`). Two real nodes over copies of one data directory, one splitting every range
 * query of two steps or more and one never splitting, answer each query of `cases/range-split.txt`; the
 * answers (status and body) must be the same bytes, and the first node must really have split.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeBlock } from '../../src/engine/tsdb/index.ts';
import { labelsFromRecord } from '../../src/engine/tsdb/labels.ts';
import { startServer, type TestServer } from '../support/server.ts';

const T0 = 1_704_067_200_000; // 2h-aligned
const SCRAPE_MS = 15_000;
/** The queries' range: 100 minutes inside the 2 h block, so windows and offsets reach before and after it. */
const START_S = (T0 + 10 * 60_000) / 1000, END_S = (T0 + 110 * 60_000) / 1000;
const CASES = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'cases', 'range-split.txt'), 'utf8')
  .split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'))
  .map((l) => { const sp = l.indexOf(' '); return { step: Number(l.slice(0, sp)), query: l.slice(sp + 1) }; });

let work: string;
let split: TestServer, whole: TestServer;

/** Counters (one with a reset), series that start or stop part-way, NaN and ±Inf, a histogram, label values to escape. */
function dataset(): { labels: ReturnType<typeof labelsFromRecord>; t: Float64Array; v: Float64Array }[] {
  const out: { labels: ReturnType<typeof labelsFromRecord>; t: Float64Array; v: Float64Array }[] = [];
  const add = (rec: Record<string, string>, fromMin: number, toMin: number, value: (i: number) => number): void => {
    const n = (toMin - fromMin) * 60_000 / SCRAPE_MS;
    const t = Float64Array.from({ length: n }, (_, i) => T0 + fromMin * 60_000 + i * SCRAPE_MS);
    out.push({ labels: labelsFromRecord(rec), t, v: Float64Array.from({ length: n }, (_, i) => value(i)) });
  };
  add({ __name__: 'c', job: 'a', instance: 'i1' }, 0, 120, (i) => i);
  add({ __name__: 'c', job: 'a', instance: 'i2' }, 0, 120, (i) => 2 * i + 0.5);
  add({ __name__: 'c', job: 'b', instance: 'i1' }, 0, 120, (i) => (i < 240 ? 3 * i : i - 240));
  add({ __name__: 'c', job: 'late', instance: 'i1' }, 50, 120, (i) => 7 * i);
  add({ __name__: 'c', job: 'early', instance: 'i1' }, 0, 45, (i) => 5 * i);
  const odd = [1, NaN, Infinity, -Infinity, 0, -0.5, 1e21, 1 / 3];
  add({ __name__: 'g', kind: 'x' }, 0, 120, (i) => odd[i % odd.length]);
  add({ __name__: 'g', kind: 'y' }, 0, 120, (i) => 2.5 * i - 300);
  for (const [le, f] of [['0.1', 1], ['1', 3], ['+Inf', 4]] as const) add({ __name__: 'h_bucket', job: 'a', le }, 0, 120, (i) => f * i);
  for (const v of ['a', 'a!', '<x&y>', 'é', 'a"b']) add({ __name__: 'odd', v }, 0, 120, (i) => i + v.length);
  return out;
}

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'tessera-range-split-'));
  const first = path.join(work, 'split'), second = path.join(work, 'whole');
  await writeBlock(path.join(first, 'tsdb'), dataset(), T0, T0 + 2 * 3_600_000);
  cpSync(first, second, { recursive: true });
  const start = (dataDir: string, minSteps: string): Promise<TestServer> => {
    const config = path.join(dataDir, 'prometheus.yml');
    writeFileSync(config, 'scrape_configs: []\n');
    return startServer({ dataDir, services: ['metrics'], workers: 1, args: ['--config.file', config, '--storage.tsdb.retention.time', '100y', '--query.split-min-steps', minSteps] });
  };
  [split, whole] = await Promise.all([start(first, '2'), start(second, '0')]);
});
after(async () => {
  await Promise.all([split?.stop(), whole?.stop()]);
  rmSync(work, { recursive: true, force: true });
});

async function rangeQuery(node: TestServer, query: string, step: number): Promise<{ status: number; body: string }> {
  const r = await fetch(`${node.promUrl}/api/v1/query_range?query=${encodeURIComponent(query)}&start=${START_S}&end=${END_S}&step=${step}`);
  return { status: r.status, body: await r.text() };
}

async function splits(node: TestServer): Promise<number> {
  const text = await (await fetch(`${node.promUrl}/metrics`)).text();
  // A counter never incremented is not listed.
  return Number(/^tessera_engine_split_range_queries_total (\S+)$/m.exec(text)?.[1] ?? '0');
}

test('every query of cases/range-split.txt answers the same bytes split and whole', async () => {
  let answered = 0;
  for (const { step, query } of CASES) {
    const want = await rangeQuery(whole, query, step);
    const got = await rangeQuery(split, query, step);
    assert.equal(got.status, want.status, `${query} (step ${step}s): ${got.body}`);
    assert.equal(got.body, want.body, `${query} (step ${step}s)`);
    if (want.status === 200) answered++;
  }
  // The data file exercises both answers and run-time errors; every answered query was split (an error falls
  // back to the whole query, and is not counted).
  assert.ok(answered >= 40 && answered < CASES.length, `${answered} of ${CASES.length} answered`);
  assert.equal(await splits(split), answered);
  assert.equal(await splits(whole), 0);
});

/** Waits until the node counts `n` queries executing or waiting; fails after a minute (a bound for reporting). */
async function queriesReach(node: TestServer, n: number): Promise<void> {
  const giveUp = AbortSignal.timeout(60_000);
  let last = '';
  while (!giveUp.aborted) {
    last = /^prometheus_engine_queries (\S+)$/m.exec(await (await fetch(`${node.promUrl}/metrics`)).text())?.[1] ?? 'absent';
    if (Number(last) === n) return;
    await new Promise((r) => setImmediate(r));
  }
  assert.fail(`prometheus_engine_queries stayed ${last}, never ${n}`);
}

// 3·10¹⁰ subquery steps in each half: evaluation runs for minutes unless it is stopped.
const HEAVY = 'max_over_time(c{job="a",instance="i1"}[1y:1ms])';

test('a split query past its deadline stops both halves and answers as the whole query does', async () => {
  const url = (node: TestServer): string => `${node.promUrl}/api/v1/query_range?query=${encodeURIComponent(HEAVY)}&start=${START_S}&end=${END_S}&step=60&timeout=1s`;
  const [got, want] = await Promise.all([split, whole].map(async (node) => {
    const r = await fetch(url(node), { signal: AbortSignal.timeout(60_000) });
    return { status: r.status, body: await r.json() as { errorType: string; error: string } };
  }));
  assert.equal(got.status, 503, `split: ${JSON.stringify(got)}; whole: ${JSON.stringify(want)}`);
  assert.deepEqual(got, want);
  await queriesReach(split, 0);
  // Both threads are free again: a query split next is answered (a half still running would hold a thread for minutes).
  const before = await splits(split);
  const r = await fetch(`${split.promUrl}/api/v1/query_range?query=c&start=${START_S}&end=${END_S}&step=60`, { signal: AbortSignal.timeout(60_000) });
  assert.equal(r.status, 200);
  assert.equal(await splits(split), before + 1);
});

test('a split query whose client goes away stops both halves and frees its slot', async () => {
  const client = new AbortController();
  const sent = fetch(`${split.promUrl}/api/v1/query_range?query=${encodeURIComponent(HEAVY)}&start=${START_S}&end=${END_S}&step=60`, { signal: client.signal });
  await queriesReach(split, 1);
  client.abort();
  await assert.rejects(sent);
  await queriesReach(split, 0);
  const r = await fetch(`${split.promUrl}/api/v1/query_range?query=c&start=${START_S}&end=${END_S}&step=60`, { signal: AbortSignal.timeout(60_000) });
  assert.equal(r.status, 200);
});
