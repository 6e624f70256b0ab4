/**
 * Tessera and the real Prometheus 2.42 on each other's TSDB directories answer the same queries:
 * blocks promtool wrote, served by Tessera (`--storage.tsdb.path` at them) and by Prometheus; a snapshot of
 * Tessera's TSDB (remote-written data, head included) served by Prometheus; a WAL Prometheus wrote (self-scrape,
 * stopped before a block; and one with a checkpoint after a head compaction) imported by Tessera; and a Tessera
 * shard's WAL, head chunks and checkpoint replayed by Prometheus; and Tessera's live TSDB directory after head
 * compaction on two workers (one block per range) served by Prometheus. Skipped without Debian's prometheus.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { ULID_RE } from '../../src/engine/tsdb/ulid.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { encodeWriteRequest } from '../../src/engine/remote/remote-write-codec.ts';
import { labelsFromRecord } from '../../src/engine/tsdb/labels.ts';
import { fileURLToPath } from 'node:url';
import { MATCH_EQUAL, newMatcher } from '../../src/engine/tsdb/api.ts';
import { PromWal, Tsdb } from '../../src/engine/tsdb/index.ts';
import { tempDir } from './support/db.ts';

const PROMETHEUS = ['/usr/bin/prometheus', '/usr/local/bin/prometheus'].find((p) => existsSync(p));
const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));
const skip = PROMETHEUS && PROMTOOL ? false : 'prometheus/promtool not installed (Debian package prometheus): the comparison with the real Prometheus is skipped';

const T0 = 1_704_067_200; // seconds
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

/** The remote-write body of `samples`, posted to `base`; the receiver must accept it. */
async function remoteWrite(base: string, samples: Parameters<typeof encodeWriteRequest>[0]): Promise<void> {
  const res = await fetch(`${base}/api/v1/write`, {
    method: 'POST', body: await encodeWriteRequest(samples),
    headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' },
  });
  assert.equal(res.status, 204, await res.text());
}

/** `n` samples every `stepS` seconds over the hour before `now` of three req_total counters and a temp gauge. */
function reqAndTempSamples(now: number, n: number, stepS: number): Parameters<typeof encodeWriteRequest>[0] {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const t = (now - 3600 + i * stepS) * 1000;
    for (const code of ['200', '404', '500']) samples.push({ labels: labelsFromRecord({ __name__: 'req_total', code, path: '/a' }), t, v: i * (code === '200' ? 3 : 1) });
    samples.push({ labels: labelsFromRecord({ __name__: 'temp', room: 'lab' }), t, v: 20 + Math.cos(i / 7) });
  }
  return samples;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
  });
}

/** Starts the real Prometheus on `dir` and resolves once it is ready; `stop` sends SIGTERM and waits for the exit. */
async function runPrometheus(dir: string, config?: (port: number) => string, extraArgs: string[] = []): Promise<{ base: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const configFile = config ? path.join(dir, '..', `prometheus-${port}.yml`) : '/dev/null';
  if (config) writeFileSync(configFile, config(port));
  const proc: ChildProcess = spawn(PROMETHEUS!, [`--config.file=${configFile}`, `--storage.tsdb.path=${dir}`, `--web.listen-address=127.0.0.1:${port}`,
    '--storage.tsdb.retention.time=100y', '--log.level=error', ...extraArgs], { stdio: 'ignore' });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const stop = async (): Promise<void> => { if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM'); await exited; };
  cleanups.push(stop);
  const base = `http://127.0.0.1:${port}`;
  let ready = false;
  proc.once('exit', () => { ready = true; });
  // Bounded: a Prometheus that neither gets ready nor exits fails its test by name, not the file at its timeout.
  const giveUp = AbortSignal.timeout(60_000);
  while (!ready) {
    if (giveUp.aborted) throw new Error(`prometheus on ${dir} not ready after 60 s`);
    try { if ((await fetch(`${base}/-/ready`, { signal: giveUp })).ok) return { base, stop }; } catch { /* not listening yet */ }
    await new Promise((r) => setImmediate(r));
  }
  throw new Error('prometheus exited before it was ready');
}

async function startPrometheus(dir: string): Promise<string> {
  return (await runPrometheus(dir)).base;
}

const QUERIES: [string, 'query' | 'query_range'][] = [
  ['req_total', 'query'], ['sum by (code) (rate(req_total[5m]))', 'query'], ['count(req_total)', 'query'],
  ['rate(req_total[2m])', 'query_range'], ['max_over_time(temp[10m])', 'query_range'], ['temp offset 5m', 'query_range'],
];

async function answers(base: string, at: number): Promise<string[]> {
  const out: string[] = [];
  for (const [q, kind] of QUERIES) {
    const params: Record<string, string> = kind === 'query' ? { query: q, time: String(at) } : { query: q, start: String(at - 3600), end: String(at), step: '60' };
    const r = await (await fetch(`${base}/api/v1/${kind}?${new URLSearchParams(params)}`)).json() as { status: string; data: { result: { metric: Record<string, string> }[] } };
    assert.equal(r.status, 'success', `${q} on ${base}`);
    const sorted = r.data.result.map((s) => JSON.stringify({ ...s, metric: Object.fromEntries(Object.entries(s.metric).sort()) })).sort();
    out.push(`${q}: ${sorted.join('\n')}`);
  }
  return out;
}

function openMetrics(): string {
  const lines = ['# TYPE req counter', '# TYPE temp gauge'];
  for (let i = 0; i < 240; i++) {
    const t = T0 + i * 30;
    for (const code of ['200', '404', '500']) lines.push(`req_total{code="${code}",path="/a"} ${i * (code === '200' ? 3 : 1)} ${t}`);
    lines.push(`temp{room="lab"} ${20 + Math.sin(i / 10)} ${t}`);
  }
  return lines.join('\n') + '\n# EOF\n';
}

test('blocks promtool wrote: Tessera and Prometheus on the same directory answer the same queries', { skip }, async () => {
  const { dir, cleanup } = tempDir('prom-dirs-');
  cleanups.push(cleanup);
  writeFileSync(path.join(dir, 'in.om'), openMetrics());
  const blocks = path.join(dir, 'prom');
  execFileSync(PROMTOOL!, ['tsdb', 'create-blocks-from', 'openmetrics', path.join(dir, 'in.om'), blocks]);
  const forTessera = path.join(dir, 'tessera-tsdb');
  cpSync(blocks, forTessera, { recursive: true });
  const prom = await startPrometheus(blocks);
  const srv: TestServer = await startServer({ services: ['metrics'], args: ['--storage.tsdb.path', forTessera, '--storage.tsdb.retention.time', '100y'] });
  cleanups.push(() => srv.destroy());
  const at = T0 + 239 * 30;
  const mine = await answers(srv.promUrl, at);
  assert.equal(mine[0].split('\n').length, 3, 'three req_total series');
  assert.deepEqual(mine, await answers(prom, at));
});

test('a snapshot of Tessera\'s TSDB (head included) served by Prometheus answers as Tessera does', { skip }, async () => {
  const srv: TestServer = await startServer({ services: ['metrics'], args: ['--web.enable-admin-api', '--web.enable-remote-write-receiver', '--storage.tsdb.retention.time', '100y'] });
  cleanups.push(() => srv.destroy());
  // The next whole minute: the oldest sample (an hour before it) stays inside the head's appendable window
  // (its max time minus an hour) even once the server's own scrape has moved that max time to the present.
  const now = Math.ceil(Date.now() / 1000 / 60) * 60;
  const samples = reqAndTempSamples(now, 120, 30);
  await remoteWrite(srv.promUrl, samples);
  const snap = await (await fetch(`${srv.promUrl}/api/v1/admin/tsdb/snapshot`, { method: 'POST' })).json() as { data: { name: string } };
  const snapDir = path.join(srv.dataDir, 'tsdb', 'snapshots', snap.data.name);
  // Both shard workers hold some of the series: their head blocks are merged into one, as Prometheus's snapshot has.
  assert.equal(readdirSync(snapDir).filter((n) => ULID_RE.test(n)).length, 1, `one block: ${readdirSync(snapDir).join(', ')}`);
  const promDir = path.join(srv.dataDir, 'for-prometheus');
  mkdirSync(promDir);
  for (const n of readdirSync(snapDir)) cpSync(path.join(snapDir, n), path.join(promDir, n), { recursive: true });
  const prom = await startPrometheus(promDir);
  const at = now - 60;
  const mine = await answers(srv.promUrl, at);
  assert.match(mine[4], /"room":"lab"/, 'temp has data in range');
  assert.deepEqual(await answers(prom, at), mine);
});

/** Raw samples and a few evaluations over what a self-scraping Prometheus logged, as sorted JSON lines. */
async function walAnswers(base: string, at: number): Promise<string[]> {
  const out: string[] = [];
  const instant = ['{__name__=~"up|scrape_.+"}[1h]', 'prometheus_tsdb_head_samples_appended_total[1h]', 'count by (job) ({__name__=~".+"} @ ' + at + ')'];
  for (const q of instant) {
    const r = await (await fetch(`${base}/api/v1/query?${new URLSearchParams({ query: q, time: String(at) })}`)).json() as { status: string; data: { result: { metric: Record<string, string> }[] } };
    assert.equal(r.status, 'success', `${q} on ${base}: ${JSON.stringify(r)}`);
    out.push(`${q}: ${r.data.result.map((x) => JSON.stringify({ ...x, metric: Object.fromEntries(Object.entries(x.metric).sort()) })).sort().join('\n')}`);
  }
  return out;
}

test('a WAL the real Prometheus wrote (head not yet in a block) replays into Tessera: same samples as Prometheus serves', { skip }, async () => {
  const { dir, cleanup } = tempDir('prom-wal-dir-');
  cleanups.push(cleanup);
  const promDir = path.join(dir, 'prom');
  mkdirSync(promDir);
  const scraping = await runPrometheus(promDir, (port) => `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: self\n    static_configs:\n      - targets: ['127.0.0.1:${port}']\n`);
  // Wait for a few scrapes (each appends a few hundred series), then stop before any block is cut.
  for (;;) {
    const r = await (await fetch(`${scraping.base}/api/v1/query?query=count_over_time(up[1h])`)).json() as { data: { result: { value: [number, string] }[] } };
    if (r.data.result.length && Number(r.data.result[0].value[1]) >= 4) break;
    await new Promise((res) => setImmediate(res));
  }
  await scraping.stop();
  assert.ok(readdirSync(path.join(promDir, 'wal')).length > 0);
  assert.equal(readdirSync(promDir).filter((n) => /^[0-9A-Z]{26}$/.test(n)).length, 0, 'no block: the data is only in the WAL');
  const forTessera = path.join(dir, 'tessera');
  cpSync(promDir, forTessera, { recursive: true });
  const prom = await startPrometheus(promDir);
  const walFiles = (): string[] => readdirSync(path.join(forTessera, 'wal'), { recursive: true }).map((n) => `${n}:${statSync(path.join(forTessera, 'wal', String(n))).size}`).sort();
  const walBefore = walFiles();
  const srv: TestServer = await startServer({ services: ['metrics'], args: ['--storage.tsdb.path', forTessera, '--storage.tsdb.retention.time', '100y'] });
  cleanups.push(() => srv.destroy());
  const at = Date.now() / 1000;
  const theirs = await walAnswers(prom, at);
  assert.match(theirs[0], /"job":"self"/, 'Prometheus has the scraped samples');
  assert.deepEqual(await walAnswers(srv.promUrl, at), theirs);
  assert.deepEqual(walFiles(), walBefore, 'Tessera left the Prometheus WAL as it was');
  assert.ok(existsSync(path.join(forTessera, 'shard-0', 'prometheus-wal-import.json')));
});

test('the WAL of a Tessera shard replays in the real Prometheus: same answers as Tessera gave', { skip }, async () => {
  const srv: TestServer = await startServer({ services: ['metrics'], workers: 1, args: ['--web.enable-remote-write-receiver', '--storage.tsdb.retention.time', '100y'] });
  cleanups.push(() => srv.destroy());
  const now = Math.ceil(Date.now() / 1000 / 60) * 60; // see above
  // 240 samples per series: the first 120 fill a chunk that is closed into chunks_head/ whatever the time of day.
  const samples = reqAndTempSamples(now, 240, 15);
  await remoteWrite(srv.promUrl, samples);
  const at = now - 60;
  const mine = await answers(srv.promUrl, at);
  assert.match(mine[4], /"room":"lab"/, 'temp has data in range');
  await srv.stop();
  const promDir = path.join(srv.dataDir, 'for-prometheus');
  mkdirSync(promDir);
  // The whole shard directory: its WAL, and the head chunk files Prometheus also reads at start-up.
  cpSync(path.join(srv.dataDir, 'tsdb', 'shard-0'), promDir, { recursive: true });
  assert.ok(readdirSync(path.join(promDir, 'chunks_head')).length > 0, 'closed head chunks are in chunks_head/');
  const prom = await startPrometheus(promDir);
  assert.deepEqual(await answers(prom, at), mine);
});

test('a shard with a block, a WAL checkpoint and segments (an upgraded layout-1 shard) is served by the real Prometheus', { skip }, async () => {
  const { dir, cleanup } = tempDir('prom-wal-cp-');
  cleanups.push(cleanup);
  const shard = path.join(dir, 'shard-0');
  cpSync(fileURLToPath(new URL('../fixtures/format/tsdb-wal-v1/shard-0', import.meta.url)), shard, { recursive: true });
  const db = await Tsdb.open({ dir: shard, openWal: (d) => PromWal.open({ dir: d }) });
  const want = db.select([newMatcher(MATCH_EQUAL, '__name__', 'm')], 0, 270 * 60_000).map((s) => ({
    metric: Object.fromEntries(s.labels.map((l) => [l.name, l.value])), values: [...s.t].map((t, i) => [t / 1000, String(s.v[i])]),
  }));
  await db.close();
  assert.ok(readdirSync(path.join(shard, 'wal')).some((n) => n.startsWith('checkpoint.')));
  const prom = await startPrometheus(shard);
  const r = await (await fetch(`${prom}/api/v1/query?${new URLSearchParams({ query: 'm[5h]', time: String(270 * 60 - 1) })}`)).json() as { data: { result: unknown[] } };
  assert.equal(want.length, 4);
  assert.deepEqual(r.data.result, want);
});

test('a WAL checkpoint the real Prometheus wrote (after compacting its head) replays into Tessera with its blocks', { skip }, async () => {
  const { dir, cleanup } = tempDir('prom-wal-cp-real-');
  cleanups.push(cleanup);
  const promDir = path.join(dir, 'prom');
  mkdirSync(promDir);
  const T = Math.floor(Date.now() / 1000 / 60) * 60;
  // Four runs, one series each, an hour apart: each start opens a new WAL segment, and with four segments the
  // head compaction the fourth run triggers (its head spans > 3 h) writes a checkpoint of the first two.
  for (let run = 0; run < 4; run++) {
    const p = await runPrometheus(promDir, undefined, ['--web.enable-remote-write-receiver']);
    const samples = [];
    for (let i = 0; i < 120; i++) samples.push({ labels: labelsFromRecord({ __name__: 'hourly', run: String(run) }), t: (T - (4 - run) * 3600 + i * 30) * 1000, v: run * 1000 + i });
    await remoteWrite(p.base, samples);
    if (run === 3) {
      // The commit that makes the head compactable triggers the compaction; wait for its checkpoint.
      while (!readdirSync(path.join(promDir, 'wal')).some((n) => /^checkpoint\.\d+$/.test(n))) await new Promise((r) => setImmediate(r));
    }
    await p.stop();
  }
  assert.ok(readdirSync(promDir).some((n) => /^[0-9A-Z]{26}$/.test(n)), 'Prometheus cut a block from its head');
  const forTessera = path.join(dir, 'tessera');
  cpSync(promDir, forTessera, { recursive: true });
  const prom = await startPrometheus(promDir);
  const srv: TestServer = await startServer({ services: ['metrics'], args: ['--storage.tsdb.path', forTessera, '--storage.tsdb.retention.time', '100y'] });
  cleanups.push(() => srv.destroy());
  const ask = async (base: string): Promise<string> => {
    const r = await (await fetch(`${base}/api/v1/query?${new URLSearchParams({ query: 'hourly[5h]', time: String(T) })}`)).json() as { data: { result: { metric: Record<string, string> }[] } };
    return r.data.result.map((x) => JSON.stringify(x)).sort().join('\n');
  };
  const theirs = await ask(prom);
  assert.equal(theirs.split('\n').length, 4, 'four series');
  assert.equal(await ask(srv.promUrl), theirs);
  const marker = JSON.parse(readFileSync(path.join(forTessera, 'shard-0', 'prometheus-wal-import.json'), 'utf8')) as { state: { checkpoint: string | null } };
  assert.match(String(marker.state.checkpoint), /^checkpoint\.\d{8}$/, 'the import read Prometheus\'s checkpoint');
});

// Its own timeout, under the file's: in one CI run this test neither passed nor failed until the file's 300 s
// were up (cause not found; its waits are bounded now), which hid which step stopped.
test('the live TSDB directory after head compaction on two workers: one block per range, and Prometheus started on it answers as Tessera does', { skip, timeout: 150_000 }, async () => {
  // No scrape configuration: the default one scrapes the server itself, and a scrape that lands before the write
  // moves a head's max time to the present, which puts the write's five-hour-old samples out of bounds.
  const first: TestServer = await startServer({ services: ['metrics'], workers: 2, args: ['--config.file', '/dev/null', '--web.enable-remote-write-receiver', '--storage.tsdb.retention.time', '100y'] });
  cleanups.push(() => first.destroy());
  const now = Math.floor(Date.now() / 1000 / 7200) * 7200; // 2 h aligned, seconds
  // Five hours of samples in one request (an empty head takes them all); both workers get some series.
  await remoteWrite(first.promUrl, reqAndTempSamples(now - 4 * 3600, 300, 60));
  await first.stop();
  // The maintenance pass at start cuts both heads (their span is over 1.5 block ranges) and merges the parts.
  const srv = await first.restart();
  cleanups.push(() => srv.destroy());
  const root = path.join(srv.dataDir, 'tsdb');
  const blocks = (): string[] => readdirSync(root).filter((n) => ULID_RE.test(n));
  const parts = (): string[] => ['shard-0', 'shard-1'].flatMap((s) => readdirSync(path.join(root, s)).filter((n) => ULID_RE.test(n)));
  // Settled: both shards cut their heads (the head's minimum over the shards moved up to the last range), their
  // parts merged, and no block being replaced (a merged block is written before the one it replaces goes).
  // Bounded so that a node that never settles — or a /metrics that never answers — fails with what it shows
  // rather than at the file's timeout.
  const giveUp = AbortSignal.timeout(90_000);
  const state = (min: number | string): string => `blocks ${blocks().join(',')}; shard parts ${parts().join(',')}; head min ${min}, want ≥ ${(now - 2 * 3600) * 1000}`;
  const headMin = async (): Promise<number> => {
    try {
      const text = await (await fetch(`${srv.promUrl}/metrics`, { signal: giveUp })).text();
      return Number(/^prometheus_tsdb_head_min_time (\S+)$/m.exec(text)?.[1]);
    } catch (err) {
      return assert.fail(`/metrics did not answer within 90 s of the restart (${(err as Error).message}): ${state('unknown')}`);
    }
  };
  let min = await headMin();
  while (blocks().length !== 2 || parts().length > 0 || min < (now - 2 * 3600) * 1000) {
    if (giveUp.aborted) assert.fail(`not settled after 90 s: ${state(min)}`);
    await new Promise((r) => setTimeout(r, 20));
    min = await headMin();
  }
  const listed = execFileSync(PROMTOOL!, ['tsdb', 'list', root], { encoding: 'utf8' }).trim().split('\n').slice(1);
  assert.equal(listed.length, 2, `promtool tsdb list: ${listed.join('\n')}`);
  const metas = blocks().map((id) => JSON.parse(readFileSync(path.join(root, id, 'meta.json'), 'utf8')) as { minTime: number; maxTime: number }).sort((a, b) => a.minTime - b.minTime);
  assert.deepEqual(metas.map((m) => [m.minTime / 1000 - now, m.maxTime / 1000 - now]), [[-6 * 3600, -4 * 3600], [-4 * 3600, -2 * 3600]], 'two 2 h blocks, not overlapping');
  // Prometheus on a copy of the directory (it would write its own wal/ into it): it sees the blocks, not the shards' heads.
  const promDir = path.join(srv.dataDir, 'for-prometheus');
  cpSync(root, promDir, { recursive: true });
  const prom = await startPrometheus(promDir);
  const at = now - 2 * 3600 - 60;
  const mine = await answers(srv.promUrl, at);
  assert.match(mine[4], /"room":"lab"/, 'temp has data in range');
  assert.equal(mine[0].split('\n').length, 3, 'three req_total series');
  assert.deepEqual(await answers(prom, at), mine);
});
