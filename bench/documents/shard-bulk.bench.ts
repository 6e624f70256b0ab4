/**
 * CPU per document of a shard worker's bulk path, in process: `docs.write` calls (the worker's task adapter,
 * items as they arrive from the main thread: a plain bulk's items as columns, msgpack bytes copied into a fresh
 * buffer per message as the ring link's reader does) of 1,000 load-test documents each (loadtest/
 * documents-scale.ts's generator: ~390-byte log documents, explicit ids), with the registry's tick after every
 * call (refreshes of the indexing buffer into segments, and merges, as the worker's timer runs them).
 * Durable: each call waits for its translog fsync. No HTTP and no main thread, so the figure isolates the shard
 * worker, and is steadier on a shared machine than a load test's docs/s.
 *
 *   node --import tsx bench/documents/shard-bulk.bench.ts [docs=200000]
 *
 * PROFILE=FILE writes a CPU profile of the second half to FILE (.cpuprofile, for DevTools).
 *
 * Prints process CPU (user + system, every thread: V8's helper threads count) per document, split into the
 * first and second half (the second excludes most warm-up), and docs/s; for the second half also the main
 * thread's share and the rest's (V8's platform threads: concurrent marking, parallel scavenges, compiles).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docsTasks, shardRegistry } from '../../src/workers/docs-tasks.ts';
import { outcomeAt, type WriteColumns, type WriteOutcomes } from '../../src/workers/protocol.ts';
import { pack, unpack } from '../../src/engine/codec/msgpack.ts';
import { logDocument, logVocabulary } from '../../loadtest/support/log-docs.ts';
import { mulberry32 } from '../support/mulberry32.ts';

const N = Number(process.argv[2] ?? 200_000);
const PER_CALL = 1000;
const meta = {
  name: 'logs', type: '_doc', mappingVersion: 1, settings: { 'index.number_of_shards': '1' },
  mapping: { properties: { title: { type: 'text' }, body: { type: 'text' }, level: { type: 'keyword' }, host: { type: 'keyword' }, bytes: { type: 'long' }, ts: { type: 'date' } } },
};

// The calls as the worker receives them: msgpack bytes, copied into a fresh buffer and decoded per call
// (sources arrive as views of that buffer).
const vocab = logVocabulary();
const r = mulberry32(7);
const calls: Uint8Array[] = [];
for (let f = 0; f < N; f += PER_CALL) {
  const n = Math.min(N, f + PER_CALL) - f;
  const docs = Array.from({ length: n }, () => Buffer.from(logDocument(vocab, r)));
  const items: WriteColumns = { ids: docs.map((_, j) => `log-${f + j}`), flags: new Uint8Array(n), sources: Buffer.concat(docs), ends: new Uint32Array(n) };
  for (let j = 0, at = 0; j < n; j++) items.ends[j] = at += docs[j].byteLength;
  calls.push(pack({ uuid: 'u', shard: 0, mv: 1, meta, items }).slice());
}

/** CPU µs of the main thread (the process's own task) and of all its threads, from /proc (Linux; zeros elsewhere). */
function threadCpu(): { main: number; all: number } {
  let main = 0, all = 0;
  try {
    for (const t of readdirSync('/proc/self/task')) {
      const st = readFileSync(`/proc/self/task/${t}/stat`, 'utf8'), f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      const us = (Number(f[11]) + Number(f[12])) * 10_000; // clock ticks of 10 ms
      all += us;
      if (Number(t) === process.pid) main = us;
    }
  } catch { /* no /proc */ }
  return { main, all };
}

const dataDir = mkdtempSync(join(tmpdir(), 'shard-bulk-'));
const init = { workerId: 0, workerCount: 1, dataDir, options: {} };
const profiler = process.env.PROFILE ? new Session() : null;
if (profiler) { profiler.connect(); await profiler.post('Profiler.enable'); }
try {
  const half = calls.length >> 1;
  let c0 = process.cpuUsage(), t0 = performance.now(), th0 = threadCpu();
  const figures: string[] = [];
  for (let k = 0; k < calls.length; k++) {
    const out = outcomeAt((await docsTasks['docs.write'](unpack(new Uint8Array(calls[k])), init)) as WriteOutcomes, 0);
    if (!('ok' in out)) throw new Error(`write failed: ${JSON.stringify(out)}`);
    shardRegistry(init).tick();
    if (k === half - 1 || k === calls.length - 1) {
      const c = process.cpuUsage(c0), dt = performance.now() - t0, n = (k === half - 1 ? half : calls.length - half) * PER_CALL;
      const th = threadCpu(), main = (th.main - th0.main) / n, rest = (th.all - th0.all) / n - main;
      figures.push(`${((c.user + c.system) / n).toFixed(1)} µs/doc (user ${(c.user / n).toFixed(1)}, system ${(c.system / n).toFixed(1)}; main thread ${main.toFixed(1)}, other threads ${rest.toFixed(1)}), ${Math.round(n / (dt / 1000))} docs/s`);
      if (k === half - 1 && profiler) await profiler.post('Profiler.start');
      c0 = process.cpuUsage(); t0 = performance.now(); th0 = threadCpu();
    }
  }
  if (profiler) writeFileSync(process.env.PROFILE!, JSON.stringify((await profiler.post('Profiler.stop')).profile));
  console.log(`first half ${figures[0]}; second half ${figures[1]}`);
  await docsTasks['docs.closeAll']();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
