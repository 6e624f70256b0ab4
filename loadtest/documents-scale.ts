/**
 * The documents engine at scale: N seeded log documents (~390 bytes of JSON each: `title`/`body` text with
 * Zipf-distributed words from a 50,000-word vocabulary, `level`/`host` keyword, `bytes` long, `ts` date;
 * explicit ids) in one index of 2 shards on a 2-worker server, measuring
 *
 *   - durable `_bulk` throughput (bodies of 2,000 docs, 4 in flight; every counted doc was acknowledged). On this
 *     2-core machine the client shares the CPU with the server, so it does what a storage benchmark's client
 *     does: the bodies are built before the clock starts (Rally reads a prepared corpus), sent over node:http
 *     with keep-alive and no compression asked for (the official JS client 6.x's and Rally's defaults; fetch
 *     asks for gzip), and a reply is parsed only when its head does not say `"errors":false`. The client's CPU
 *     per document of the load went from 24.7 µs to 4.7 (200,000 docs, 2026-11-28). `INLINE_BODIES=1` is the
 *     method of the figures before 2026-11-28 05:00 (each body generated when it is sent, through fetch, every
 *     reply parsed); the documents, ids and order are the same either way. The client's and the server's CPU per
 *     document of the load are printed with it (`loadClientCpuUsPerDoc`, `loadServerCpuUsPerDoc`);
 *   - resident and anonymous memory (`VmRSS`/`RssAnon` of /proc/PID/status) 3 s after load + refresh + flush, and
 *     3 s after the background merges that follow have ended;
 *   - the data directory's size against the raw JSON, right after the flush and once background merges end;
 *   - search latency p50/p99 of four query kinds (2-term AND, 2-term OR, terms + stats aggregations under a
 *     term filter, bool + date range sorted by date) once background merges are done, with 4 clients and
 *     with 1, a bounded number of queries each, after WARMUP unmeasured queries of each kind (as Rally's
 *     warm-up iterations: the first hundreds of queries run while V8 is still compiling the search code, which
 *     doubled the CPU per query). Searches go over node:http with a keep-alive agent, uncompressed, as the
 *     official JS client 6.x sends them; with 1 client also through fetch, the client of earlier figures;
 *   - restart: SIGTERM, start again, time until `_count` answers N (process start included);
 *   - memory after the restart and 200 mixed searches.
 *
 *   node --import tsx loadtest/documents-scale.ts [docs=1000000] [--keep DIR]
 *
 * `AFTER_LOAD_ONLY=1` stops after the memory figures that follow the load (the 10M-document figure).
 *
 * Prints one JSON object with every figure (and a table); bounded by the document count (about 1 minute per
 * million documents here).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type TestServer } from '../test/support/server.ts';
import { mulberry32 } from '../bench/support/mulberry32.ts';
import { logDocument, logVocabulary, LOG_SPAN_MS, LOG_T0 } from './support/log-docs.ts';
import { KeepAliveClient } from './support/keep-alive-client.ts';

const N = Number(process.argv[2] ?? 1_000_000);
const PER_BULK = 2_000;
const IN_FLIGHT = 4;
const QUERIES_PER_KIND = Number(process.env.QUERIES ?? 400);
const WARMUP = Number(process.env.WARMUP ?? 300);
const CLIENTS = 4;
const SETTLE_MS = 3000;

const vocab = logVocabulary();
const words = vocab.words;
const T0 = LOG_T0;
const SPAN_MS = LOG_SPAN_MS;

async function es(s: TestServer, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(s.esUrl + path, {
    method, headers: { 'content-type': typeof body === 'string' ? 'application/x-ndjson' : 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

function memory(pid: number): { rssMB: number; anonMB: number } {
  const st = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string): number => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(st)?.[1] ?? NaN);
  return { rssMB: Math.round(kb('VmRSS') / 1024), anonMB: Math.round(kb('RssAnon') / 1024) };
}

/** Per-thread heap figures from `/metrics` (when the metrics service runs), in MB. */
async function heaps(s: TestServer): Promise<Record<string, number>> {
  const text = await (await fetch(`${s.promUrl}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^(process_heap_bytes|process_heap_reserved_bytes|process_array_buffers_bytes|tessera_worker_(?:heap|heap_reserved|array_buffers)_bytes|tessera_segment_cache_bytes|tessera_index_buffer_bytes)(?:\{worker="(\d+)"\})? (\S+)/.exec(line);
    if (m) out[m[1].replace(/_bytes$/, '') + (m[2] ? m[2] : '')] = Math.round(Number(m[3]) / 1e6);
  }
  return out;
}

/** CPU µs the process `pid` has used, all its threads (utime + stime of /proc/PID/stat, 10 ms clock ticks). */
function processCpuUs(pid: number): number {
  const st = readFileSync(`/proc/${pid}/stat`, 'utf8'), f = st.slice(st.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return n;
}

const BULK_OK = /^\{"took":\d+,"errors":false,/;

/** The `_bulk` body of documents `first`..`first + n - 1` (ids `log-<i>`), drawing them from `r` in order. */
function bulkBody(r: () => number, first: number, n: number): { body: string; rawBytes: number } {
  let body = '', rawBytes = 0;
  for (let i = first; i < first + n; i++) { const d = logDocument(vocab, r); rawBytes += Buffer.byteLength(d); body += `{"index":{"_id":"log-${i}"}}\n${d}\n`; }
  return { body, rawBytes };
}

async function load(s: TestServer, inline: boolean): Promise<{ docsPerSec: number; rawBytes: number; clientCpuUsPerDoc: number; serverCpuUsPerDoc: number }> {
  const r = mulberry32(7);
  let rawBytes = 0;
  // Each body is drawn whole before the next one starts, so the documents are the same in either mode.
  const prebuilt: Uint8Array[] = [];
  if (!inline) {
    for (let first = 0; first < N; first += PER_BULK) {
      const b = bulkBody(r, first, Math.min(PER_BULK, N - first));
      rawBytes += b.rawBytes;
      prebuilt.push(Buffer.from(b.body));
    }
  }
  let next = 0;
  const http = inline ? null : new KeepAliveClient(s.esUrl, IN_FLIGHT);
  const cpu0 = process.cpuUsage(), server0 = processCpuUs(s.pid);
  const started = performance.now();
  async function worker(): Promise<void> {
    while (next < N) {
      const first = next;
      const n = Math.min(PER_BULK, N - first);
      next += n;
      let out: any;
      if (http === null) {
        const b = bulkBody(r, first, n);
        rawBytes += b.rawBytes;
        out = await es(s, 'POST', '/logs/_doc/_bulk', b.body);
      } else {
        const reply = await http.post('/logs/_doc/_bulk', prebuilt[first / PER_BULK], 'application/x-ndjson');
        if (reply.status !== 200) throw new Error(`bulk: ${reply.status} ${reply.text.slice(0, 300)}`);
        // Every item succeeded exactly when the reply's head says `"errors":false` (Elasticsearch writes it
        // second): only a reply with errors is parsed, to name the first one.
        out = BULK_OK.test(reply.text) ? { errors: false } : JSON.parse(reply.text);
      }
      if (out.errors) throw new Error(`bulk errors: ${JSON.stringify(out.items.find((x: any) => x.index.error)).slice(0, 300)}`);
    }
  }
  try {
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  } finally {
    http?.close();
  }
  const secs = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0), server = processCpuUs(s.pid) - server0;
  const perDoc = (us: number): number => Math.round((us / N) * 10) / 10;
  return { docsPerSec: Math.round(N / secs), rawBytes, clientCpuUsPerDoc: perDoc(cpu.user + cpu.system), serverCpuUsPerDoc: perDoc(server) };
}

type Kind = 'and' | 'or' | 'aggs' | 'range-sort';
const KINDS: Kind[] = ['and', 'or', 'aggs', 'range-sort'];

function query(kind: Kind, r: () => number): unknown {
  // Mid-frequency words (ranks 20–2,000), as a user's searches mostly are.
  const w = (): string => words[20 + Math.floor(r() * 1980)];
  switch (kind) {
    case 'and': return { query: { match: { body: { query: `${w()} ${w()}`, operator: 'and' } } } };
    case 'or': return { query: { match: { body: `${w()} ${w()}` } } };
    case 'aggs': return { size: 0, query: { term: { host: `host-${String(Math.floor(r() * 200)).padStart(3, '0')}` } }, aggs: { levels: { terms: { field: 'level' } }, bytes: { stats: { field: 'bytes' } } } };
    case 'range-sort': {
      const from = T0 + Math.floor(r() * (SPAN_MS - 86_400_000));
      return { query: { bool: { must: [{ match: { body: w() } }], filter: [{ range: { ts: { gte: new Date(from).toISOString(), lt: new Date(from + 86_400_000).toISOString() } } }] } }, sort: [{ ts: 'desc' }] };
    }
  }
}

/** Waits until no shard is merging (background merges after the load would otherwise share the CPU with the searches). */
async function mergesDone(s: TestServer): Promise<number> {
  const t0 = performance.now();
  for (let quiet = 0; quiet < 3;) {
    const st = await es(s, 'GET', '/logs/_stats');
    // A server without merge statistics (an older engine) has nothing to wait for.
    quiet = (st._all.total.merges?.current ?? 0) === 0 ? quiet + 1 : 0;
    await new Promise((r) => setTimeout(r, 200));
  }
  return Math.round(performance.now() - t0);
}

/**
 * p50/p99 of `count` searches of one kind from `clients` clients, each sending its next search when the last
 * answered. `via` 'http' sends them as the official JS client 6.x does (node:http, keep-alive); 'fetch' through
 * undici, the client of the figures before 2026-11-28, kept to compare the two in one run.
 */
async function latencies(s: TestServer, kind: Kind, count: number, seed: number, clients = CLIENTS, via: 'http' | 'fetch' = 'http'): Promise<{ p50: number; p99: number }> {
  const r = mulberry32(seed);
  const qs = Array.from({ length: count }, () => JSON.stringify(query(kind, r)));
  const lat: number[] = [];
  const http = via === 'http' ? new KeepAliveClient(s.esUrl, clients) : null;
  const search = async (q: string): Promise<number> => {
    if (http !== null) return (await http.post('/logs/_search', q)).status;
    const res = await fetch(`${s.esUrl}/logs/_search`, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-encoding': 'identity' }, body: q });
    await res.text();
    return res.status;
  };
  let i = 0;
  async function client(): Promise<void> {
    while (i < qs.length) {
      const q = qs[i++];
      const t0 = performance.now();
      const status = await search(q);
      if (status !== 200) throw new Error(`search ${status}`);
      lat.push(performance.now() - t0);
    }
  }
  try {
    await Promise.all(Array.from({ length: clients }, client));
  } finally {
    http?.close();
  }
  lat.sort((a, b) => a - b);
  const pct = (p: number): number => Math.round(lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] * 100) / 100;
  return { p50: pct(0.5), p99: pct(0.99) };
}

async function waitCount(s: TestServer): Promise<void> {
  for (;;) {
    try {
      const c = await es(s, 'GET', '/logs/_count');
      if (c.count === N) return;
    } catch { /* shards still opening */ }
    await new Promise((r) => setTimeout(r, 20));
  }
}

const keep = process.argv.indexOf('--keep');
let s = await startServer({ services: ['documents', 'metrics'], workers: 2, env: process.env.ARENAS ? { MALLOC_ARENA_MAX: process.env.ARENAS } : {}, dataDir: keep > 0 ? process.argv[keep + 1] : undefined });
const out: Record<string, unknown> = { docs: N };
try {
  // AFTER_LOAD_ONLY leaves this block after the memory figures that follow the load.
  measure: {
    await es(s, 'PUT', '/logs', {
      settings: { number_of_shards: 2 },
      mappings: { _doc: { properties: { title: { type: 'text' }, body: { type: 'text' }, level: { type: 'keyword' }, host: { type: 'keyword' }, bytes: { type: 'long' }, ts: { type: 'date' } } } },
    });
    const inline = process.env.INLINE_BODIES === '1';
    const l = await load(s, inline);
    out.bulkClient = inline ? 'bodies generated while sending, fetch' : 'bodies built before the clock, node:http';
    out.bulkDocsPerSec = l.docsPerSec;
    out.loadClientCpuUsPerDoc = l.clientCpuUsPerDoc;
    out.loadServerCpuUsPerDoc = l.serverCpuUsPerDoc;
    out.rawJsonMB = Math.round(l.rawBytes / 1e6);
    out.anonAtEndOfLoadMB = memory(s.pid).anonMB;
    await es(s, 'POST', '/logs/_refresh');
    await es(s, 'POST', '/logs/_flush');
    // Resident memory a few seconds after the load, once the threads have settled (idle collections ran); the
    // path there sampled every half second.
    const path: number[] = [];
    for (let t = 0; t < SETTLE_MS; t += 500) { await new Promise((r) => setTimeout(r, 500)); path.push(memory(s.pid).anonMB); }
    out.anonEveryHalfSecondAfterFlushMB = path;
    out.afterLoad = { ...memory(s.pid), heapsMB: await heaps(s) };
    if (process.env.AFTER_LOAD_ONLY) break measure;
    const disk = dirBytes(join(s.dataDir, 'es'));
    out.dataDirMB = Math.round(disk / 1e6);
    out.dataDirRatio = Math.round((disk / l.rawBytes) * 100) / 100;
    out.waitForMergesMs = await mergesDone(s);
    // Right after the flush the directory also holds the inputs of merges still running; once they end, what stays.
    const settled = dirBytes(join(s.dataDir, 'es'));
    out.dataDirAfterMergesMB = Math.round(settled / 1e6);
    out.dataDirAfterMergesRatio = Math.round((settled / l.rawBytes) * 100) / 100;
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    out.afterMerges = { ...memory(s.pid), heapsMB: await heaps(s) };
    out.segments = (await es(s, 'GET', '/_cat/segments/logs?format=json').catch(() => [])).length;
    const lat: Record<string, unknown> = {}, one: Record<string, unknown> = {};
    for (const [i, k] of KINDS.entries()) await latencies(s, k, WARMUP, 300 + i);
    for (const [i, k] of KINDS.entries()) lat[k] = await latencies(s, k, QUERIES_PER_KIND, 100 + i);
    for (const [i, k] of KINDS.entries()) one[k] = await latencies(s, k, QUERIES_PER_KIND / 2, 200 + i, 1);
    const oneFetch: Record<string, unknown> = {};
    for (const [i, k] of KINDS.entries()) oneFetch[k] = await latencies(s, k, QUERIES_PER_KIND / 2, 200 + i, 1, 'fetch');
    out.searchMs = lat;
    out.searchMsOneClient = one;
    out.searchMsOneClientFetch = oneFetch;
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    out.afterSearches = { ...memory(s.pid), heapsMB: await heaps(s) };

    await s.stop();
    const t0 = performance.now();
    s = await s.restart();
    await waitCount(s);
    out.restartToCountMs = Math.round(performance.now() - t0);
    out.afterRestart = memory(s.pid);
    const r = mulberry32(9);
    for (let i = 0; i < 200; i++) await es(s, 'POST', '/logs/_search', query(KINDS[i % 4], r));
    await new Promise((ok) => setTimeout(ok, SETTLE_MS));
    out.afterRestartAnd200Searches = { ...memory(s.pid), heapsMB: await heaps(s) };
  }
  console.log(JSON.stringify(out, null, 2));
} finally {
  if (keep > 0) await s.stop(); else await s.destroy();
}
