/**
 * Every user-supplied Go regex on the metrics API runs in linear time with RE2 semantics: PromQL label
 * matchers, `/api/v1/series` matchers and `label_replace`. `(a|aa)*b` against a 46-character label value took
 * 14.8 s with a backtracking RegExp (issue 16); these requests are answered at once, with the right series.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeBlock } from '../../src/engine/tsdb/index.ts';
import { labelsFromRecord } from '../../src/engine/tsdb/labels.ts';
import { startServer, type TestServer } from '../support/server.ts';

const T0 = 1_704_067_200_000; // 2h-aligned
const LONG = 'a'.repeat(46);
let srv: TestServer;

before(async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-regex-'));
  const t = Float64Array.from({ length: 10 }, (_, i) => T0 + i * 15_000);
  const series = [LONG, 'aaab', 'Prod-EU'].map((job, i) => ({ labels: labelsFromRecord({ __name__: 'm', job }), t, v: new Float64Array(10).fill(i) }));
  await writeBlock(path.join(dataDir, 'tsdb'), series, T0, T0 + 2 * 3_600_000);
  const config = path.join(dataDir, 'prometheus.yml');
  writeFileSync(config, 'scrape_configs: []\n');
  srv = await startServer({ dataDir, services: ['metrics'], workers: 2, args: ['--config.file', config] });
});
after(async () => { await srv?.destroy(); });

async function get(p: string): Promise<{ status: number; json: { status: string; data: unknown; error?: string } }> {
  const r = await fetch(srv.promUrl + p);
  return { status: r.status, json: await r.json() as { status: string; data: unknown } };
}

const time = `time=${(T0 + 60_000) / 1000}`;
const jobsOf = (data: unknown): string[] =>
  ((data as { result: { metric: Record<string, string> }[] }).result).map((s) => s.metric.job).sort();

test('a PromQL matcher that backtracks exponentially elsewhere selects the right series', async () => {
  const r = await get(`/api/v1/query?query=${encodeURIComponent('m{job=~"(a|aa)*b"}')}&${time}`);
  assert.equal(r.status, 200);
  assert.deepEqual(jobsOf(r.json.data), ['aaab']);
  const neg = await get(`/api/v1/query?query=${encodeURIComponent('m{job!~"(a|aa)*b"}')}&${time}`);
  assert.deepEqual(jobsOf(neg.json.data), ['Prod-EU', LONG].sort());
});

test('RE2 syntax in matchers: flag groups and POSIX classes', async () => {
  const r = await get(`/api/v1/query?query=${encodeURIComponent('m{job=~"(?i:prod)-[[:upper:]]+"}')}&${time}`);
  assert.deepEqual(jobsOf(r.json.data), ['Prod-EU']);
  const bad = await get(`/api/v1/query?query=${encodeURIComponent('m{job=~"(a"}')}&${time}`);
  assert.equal(bad.status, 400);
  assert.match(bad.json.error!, /error parsing regexp: missing closing \)/);
});

test('/api/v1/series matchers run the same engine', async () => {
  const r = await get(`/api/v1/series?match[]=${encodeURIComponent('m{job=~"(a|aa)*b"}')}&start=${T0 / 1000}&end=${T0 / 1000 + 600}`);
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.data, [{ __name__: 'm', job: 'aaab' }]);
});

test('label_replace with a bomb regex leaves non-matching series alone', async () => {
  const q = 'label_replace(m, "x", "$1", "job", "((a|aa)*)b")';
  const r = await get(`/api/v1/query?query=${encodeURIComponent(q)}&${time}`);
  const xs = (r.json.data as { result: { metric: Record<string, string> }[] }).result.map((s) => `${s.metric.job}:${s.metric.x ?? ''}`).sort();
  assert.deepEqual(xs, ['Prod-EU:', 'aaab:aaa', `${LONG}:`].sort());
});
