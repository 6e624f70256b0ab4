/**
 * Real-time GET throughput: `GET /{index}/_doc/{id}` with random ids over N loaded documents (default
 * 100,000; the figure is for 1,000,000), as a ratio to `GET /` in the same run; plus the resident
 * memory of the server per million documents and the restart time (ready to serve) with N documents.
 *
 *   node --import tsx loadtest/get.ts [docs=100000] [seconds=5]
 *
 * Server and autocannon share the machine's cores (no pinning: the documents path uses both workers).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort, table, type LoadResult } from './support/run.ts';
import { bulkBody, rng } from './support/es-docs.ts';

const N = Number(process.argv[2] ?? 100_000);
const seconds = Math.min(10, Number(process.argv[3] ?? 5));
const here = fileURLToPath(new URL('.', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tessera-get-'));
const port = await freePort();

async function start(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(here, '../bin/tessera'), '--path.data', join(dir, 'data'), '--http.port', String(port),
    '--services', 'documents', '--workers', '2', '--log.level', 'warn'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise((res) => child.once('message', res));
  return child;
}

const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function run(name: string, path: () => string): Promise<LoadResult> {
  const r = await autocannon({ url: `http://127.0.0.1:${port}`, duration: seconds, connections: 64, pipelining: 1,
    requests: [{ method: 'GET', setupRequest: (req: any) => ({ ...req, path: path() }) }] } as any);
  return { name, reqPerSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

let child = await start();
// A bounded run (e.g. under `timeout`) must not leave its server behind.
process.once('SIGTERM', () => { child.kill('SIGTERM'); process.exit(1); });
const base = `http://127.0.0.1:${port}`;
try {
  await fetch(`${base}/docs`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings: { number_of_shards: 5, number_of_replicas: 0 } }) });
  const rss0 = rssMb(child.pid!);
  const r = rng(7);
  const loadStart = Date.now();
  let next = 0;
  await Promise.all(Array.from({ length: 6 }, async () => {
    while (next < N) {
      const first = next;
      next += 1000;
      const res = await fetch(`${base}/docs/_doc/_bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: bulkBody(first, Math.min(1000, N - first), r) });
      await res.arrayBuffer();
    }
  }));
  console.log(`loaded ${N} docs in ${((Date.now() - loadStart) / 1000).toFixed(1)} s`);
  await fetch(`${base}/docs/_flush`, { method: 'POST' });
  const rss = rssMb(child.pid!);
  const pick = rng(99);
  const rows = [await run('GET /', () => '/'), await run(`GET /docs/_doc/{random of ${N}}`, () => `/docs/_doc/${Math.floor(pick() * N)}`)];
  console.log(table(rows, rows[0]));
  console.log(`\nGET doc vs GET /: req/s ${(rows[1].reqPerSec / rows[0].reqPerSec).toFixed(2)}× (target ≥ 0.50), p99 ${rows[1].p99Ms} ms vs ${rows[0].p99Ms} ms`);
  child.kill('SIGTERM');
  await new Promise((res) => child.once('exit', res));
  const t0 = Date.now();
  child = await start();
  const first = await fetch(`${base}/docs/_doc/${N - 1}`);
  await first.arrayBuffer();
  console.log(`restart with ${N} docs: ready in ${Date.now() - t0} ms (first GET ${first.status}); RSS ${rss0.toFixed(0)} MB empty, ${rss.toFixed(0)} MB loaded ≈ ${((rss - rss0) / N * 1e6 / 1024).toFixed(2)} GB per million documents (server process incl. workers)`);
} finally {
  // The server flushes every shard on SIGTERM: remove its directory only after it has exited.
  if (child.exitCode === null) { child.kill('SIGTERM'); await new Promise((res) => child.once('exit', res)); }
  rmSync(dir, { recursive: true, force: true });
}
