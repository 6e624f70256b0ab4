/**
 * Memory per active series on the scrape → TSDB path, in process, split as the server splits it:
 *  - main thread: one target's scrape loop (series cache, per-series state) and the TSDB client's routes,
 *    after scraping SERIES series 4 times (a transport stand-in encodes each append with msgpack as the
 *    shard pool does and answers with refs);
 *  - shard worker: a shard's Tsdb (head, postings, label strings, WAL) after the same series were appended
 *    from msgpack-decoded labels (fresh strings, as a worker receives them) and ROUNDS more samples by ref.
 * Reported as V8 heap bytes per series after a full GC (and, for the main thread, ArrayBuffer bytes: its series
 * tables are typed arrays outside the heap), and the change of RssAnon for the worker part.
 *
 *   node --expose-gc --import tsx bench/tsdb/series-memory.ts [series=100000] [rounds=30]
 *
 * Not a tinybench file (it measures memory, not time), so `npm run bench` does not run it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScrapeLoop } from '../../src/engine/scrape/scrape-loop.ts';
import { loadConfig } from '../../src/engine/scrape/config.ts';
import { buildTargets } from '../../src/engine/scrape/target.ts';
import { TsdbClient, type TsdbTransport } from '../../src/server/prom/tsdb-client.ts';
import { pack, unpack } from '../../src/engine/codec/msgpack.ts';
import { Tsdb, PromWal } from '../../src/engine/tsdb/index.ts';

const SERIES = Number(process.argv[2] ?? 100_000);
const ROUNDS = Number(process.argv[3] ?? 30);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const fullGc = (): void => { gc(); gc(); };
const heap = (): number => process.memoryUsage().heapUsed;
const rssAnon = (): number => Number(/RssAnon:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
const CODES = ['200', '404', '500', '302'];

const arrayBuffers = (): number => process.memoryUsage().arrayBuffers;

async function mainThread(): Promise<{ heap: number; arrayBuffers: number }> {
  const body = (round: number): Buffer => {
    const lines = ['# TYPE load_requests_total counter'];
    for (let i = 0; i < SERIES; i++) lines.push(`load_requests_total{handler="/api/v${i % 50}",code="${CODES[i % 4]}",n="${i}"} ${i * 3 + round}`);
    return Buffer.from(lines.join('\n') + '\n');
  };
  const bodies = [body(1), body(2)];
  const cfg = loadConfig('scrape_configs:\n  - job_name: bench\n    static_configs: [{targets: ["127.0.0.1:9"]}]\n', '').scrapeConfigs[0];
  const target = buildTargets(cfg, cfg.staticConfigs).active[0];
  let round = 0;
  let nextRef = 1;
  const transport = {
    size: 2,
    async call(_w: number, _op: string, args: unknown) {
      const a = unpack(pack(args)) as { refs: Float64Array; ts: Float64Array };
      const refs = new Float64Array(a.refs.length);
      for (let i = 0; i < refs.length; i++) if (a.refs[i] === 0) refs[i] = nextRef++;
      return { added: a.ts.length, outOfOrder: 0, duplicate: 0, outOfBounds: 0, firstError: '', refs, epoch: 1 };
    },
  } as unknown as TsdbTransport;
  fullGc();
  const h0 = heap(), a0 = arrayBuffers();
  const client = new TsdbClient(transport);
  const loop = new ScrapeLoop(target, cfg, {
    sink: client, now: () => 1_700_000_000_000 + round * 15_000,
    get: async () => ({ status: 200, statusText: 'OK', contentType: 'text/plain; version=0.0.4', body: bodies[round++ & 1] }),
  });
  for (let i = 0; i < 4; i++) await loop.scrapeOnce();
  fullGc();
  const perSeries = { heap: (heap() - h0) / SERIES, arrayBuffers: (arrayBuffers() - a0) / SERIES };
  (globalThis as { keep?: unknown }).keep = [loop, client];
  return perSeries;
}

async function worker(): Promise<{ heap: number; rss: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'series-memory-'));
  const flat = Array.from({ length: SERIES }, (_, k) => ['__name__', 'load_requests_total', 'code', CODES[k % 4], 'handler', `/api/v${k % 50}`,
    'instance', '127.0.0.1:9100', 'job', 'load', 'n', String(k)]);
  const packed = pack(flat);
  flat.length = 0;
  const db = await Tsdb.open({ dir, openWal: (d) => PromWal.open({ dir: d, compress: true }) });
  fullGc();
  const h0 = heap(), r0 = rssAnon();
  const sidx = new Uint32Array(SERIES);
  for (let k = 0; k < SERIES; k++) sidx[k] = k;
  const columns = (r: number) => ({ ts: new Float64Array(SERIES).fill(1_704_067_200_000 + r * 1000), vs: Float64Array.from({ length: SERIES }, (_, k) => k * 3 + r) });
  const first = await db.append({ flat: unpack(packed) as string[][], sidx, ...columns(0) });
  const refs = Float64Array.from(first.refs ?? []);
  for (let r = 1; r <= ROUNDS; r++) await db.append({ refs, sidx, ...columns(r) });
  fullGc();
  const out = { heap: (heap() - h0) / SERIES, rss: (rssAnon() - r0) / SERIES };
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  return out;
}

const m = await mainThread();
const w = await worker();
console.log(`${SERIES} series (6 labels), ${ROUNDS + 1} samples each on the worker side`);
console.log(`main thread (scrape loop + TSDB client): ${m.heap.toFixed(0)} B heap + ${m.arrayBuffers.toFixed(0)} B ArrayBuffers per series`);
console.log(`shard worker (head + WAL): ${w.heap.toFixed(0)} B heap per series, RssAnon +${w.rss.toFixed(0)} B per series`);
