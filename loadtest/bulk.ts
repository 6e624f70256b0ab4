/**
 * Durable bulk indexing throughput: 1,000-document `_bulk` bodies of ~1 KB log-like JSON documents (dynamic
 * mapping, a text field, auto-generated ids) sent by a small driver (8 requests in flight) for a bounded time, against the
 * in-process ceiling of the same bodies through JSON.parse + the dynamic-mapping walk + the standard analyzer
 * over their text fields, in one thread.
 *
 *   node --import tsx loadtest/bulk.ts [seconds=8] [workers=2] [in-flight=8]
 *
 * A 3 s warm-up precedes the measured period. Prints docs/s for both and their ratio. Every counted document was acknowledged (fsynced in its shard's WAL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { dynamicUpdate, NEED_LOSSLESS } from '../src/engine/documents/dynamic.ts';
import { mergeMapping } from '../src/engine/documents/mapping.ts';
import { parseLossless } from '../src/engine/documents/source.ts';
import type { MappingJson } from '../src/engine/search/api.ts';
import { AnalyzerRegistry } from '../src/engine/analysis/analyzers.ts';
import { TokenBuf } from '../src/engine/analysis/token-buf.ts';
import { ScratchIndex } from '../test/support/scratch-index.ts';
import { freePort } from './support/run.ts';
import { bulkBody, rng } from './support/es-docs.ts';

const seconds = Math.min(10, Number(process.argv[2] ?? 8));
const workers = Number(process.argv[3] ?? 2);
const PER_BULK = 1000;
const IN_FLIGHT = Number(process.argv[4] ?? 8);
const here = fileURLToPath(new URL('.', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tessera-bulk-'));

const r = rng(42);
const bodies: string[] = [];
for (let b = 0; b < 40; b++) bodies.push(bulkBody(b * PER_BULK, PER_BULK, r, true));

function ceiling(): number {
  let mapping: MappingJson = {};
  const standard = new AnalyzerRegistry().get('standard')!;
  const tokens = new TokenBuf();
  let docs = 0;
  const until = Date.now() + Math.min(3, seconds) * 1000;
  while (Date.now() < until) {
    for (const body of bodies) {
      const lines = body.split('\n');
      for (let i = 1; i < lines.length; i += 2) {
        JSON.parse(lines[i - 1]);
        const doc = JSON.parse(lines[i]) as Record<string, unknown>;
        let delta: MappingJson | null;
        try { delta = dynamicUpdate(mapping, '_doc', doc); } catch (e) {
          if (e !== NEED_LOSSLESS) throw e;
          delta = dynamicUpdate(mapping, '_doc', parseLossless(lines[i]) as Record<string, unknown>);
        }
        if (delta) mapping = mergeMapping(mapping, delta);
        // The text fields of the document through the standard analyzer, as the index does.
        standard.analyze(doc.message as string, tokens.clear());
        standard.analyze(doc.path as string, tokens.clear());
        docs++;
      }
    }
  }
  return docs / Math.min(3, seconds);
}

/** The search index's own indexing cost (what every shard does per document, besides the translog). */
function searchIndexing(mapping: MappingJson): number {
  const x = new ScratchIndex();
  let docs = 0;
  const until = Date.now() + Math.min(3, seconds) * 1000;
  while (Date.now() < until) {
    for (const body of bodies) {
      const lines = body.split('\n');
      for (let i = 1; i < lines.length; i += 2) x.add(String(docs++), JSON.parse(lines[i]) as Record<string, unknown>, mapping);
      x.index.refresh();
      if (Date.now() >= until) break;
    }
  }
  void x.close();
  return docs / Math.min(3, seconds);
}

const port = await freePort();
const child = spawn(process.execPath, [join(here, '../bin/tessera'), '--path.data', join(dir, 'data'), '--http.port', String(port),
  '--services', 'documents', '--workers', String(workers), '--log.level', 'warn'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
await new Promise((res) => child.once('message', res));
// A bounded run (e.g. under `timeout`) must not leave its server behind.
process.once('SIGTERM', () => { child.kill('SIGTERM'); process.exit(1); });
const base = `http://127.0.0.1:${port}`;
try {
  await fetch(`${base}/bulk`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings: { number_of_shards: 5, number_of_replicas: 0 } }) });
  let acked = 0, failed = 0, next = 0;
  let until = Date.now() + 3000;
  const driver = async (): Promise<void> => {
    while (Date.now() < until) {
      const body = bodies[next++ % bodies.length];
      const res = await fetch(`${base}/bulk/_doc/_bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });
      const j = (await res.json()) as { errors: boolean; items: { index: { status: number } }[] };
      for (const it of j.items) if (it.index.status < 300) acked++; else failed++;
    }
  };
  // Warm-up (JIT, lazily loaded modules, dynamic mapping), not counted.
  await Promise.all(Array.from({ length: IN_FLIGHT }, driver));
  acked = 0;
  failed = 0;
  const started = Date.now();
  until = started + seconds * 1000;
  await Promise.all(Array.from({ length: IN_FLIGHT }, driver));
  const served = acked / ((Date.now() - started) / 1000);
  const inProc = ceiling();
  const mapping = (await (await fetch(`${base}/bulk/_mapping`)).json() as Record<string, { mappings: { _doc: MappingJson } }>).bulk.mappings._doc;
  const indexing = searchIndexing(mapping);
  console.log('| measurement | docs/s |\n|---|---|');
  console.log(`| tessera _bulk, durable (${workers} workers, ${IN_FLIGHT} in flight) | ${Math.round(served)} |`);
  console.log(`| in-process JSON.parse + dynamic mapping + standard analyzer, 1 thread | ${Math.round(inProc)} |`);
  console.log(`| in-process ShardIndex.index + refresh (search's indexing), 1 thread | ${Math.round(indexing)} |`);
  console.log(`\nratio served / in-process: ${(served / inProc).toFixed(2)}; failed items: ${failed}; target ≥ 25,000 docs/s durable`);
} finally {
  // The server flushes every shard on SIGTERM: remove its directory only after it has exited.
  if (child.exitCode === null) { child.kill('SIGTERM'); await new Promise((res) => child.once('exit', res)); }
  rmSync(dir, { recursive: true, force: true });
}
