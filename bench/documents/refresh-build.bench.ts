/**
 * CPU and page faults per document of a shard worker's refresh (`SegmentBuilder.build`), in process: buffers of
 * load-test log documents (loadtest/documents-scale.ts's generator) filled as the indexer fills them (standard
 * analyzer on `title` and `body`, `level`/`host` keywords with ordinals, `bytes`/`ts` numerics, stored sources,
 * live ids), each built into its in-memory segment; every buffer takes over the previous one's columns, and the
 * last four segments stay alive, as a worker holds a few until its write-out. The first two builds (warm-up)
 * are not counted.
 *
 *   node --import tsx bench/documents/refresh-build.bench.ts [builds=16] [docsPerBuild=12000]
 *
 * 12,000 documents is about one second of a worker's share of the bulk probe (one refresh). Prints µs per
 * document of the adds and of `build()`, and the minor page faults per document `build()` took (new memory
 * is dear on this project's virtual machines: 7–15 µs a page).
 */
import { SegmentBuilder } from '../../src/engine/postings/segment-builder.ts';
import { AnalyzerRegistry } from '../../src/engine/analysis/analyzers.ts';
import { TokenBuf } from '../../src/engine/analysis/token-buf.ts';
import type { MemorySegment } from '../../src/engine/postings/memory-segment.ts';
import { logDocument, logVocabulary } from '../../loadtest/support/log-docs.ts';
import { mulberry32 } from '../support/mulberry32.ts';

const BUILDS = Number(process.argv[2] ?? 16), PER = Number(process.argv[3] ?? 12_000), WARM = 2;
const vocab = logVocabulary(), r = mulberry32(7);
const standard = new AnalyzerRegistry().get('standard')!;
const tokens = new TokenBuf();
interface LogDoc { title: string; body: string; level: string; host: string; bytes: number; ts: string }
const texts = Array.from({ length: 2 * PER }, () => logDocument(vocab, r));
const docs = texts.map((t) => JSON.parse(t) as LogDoc), sources = texts.map((t) => Buffer.from(t));

let b = new SegmentBuilder();
const kept: MemorySegment[] = [];
let addUs = 0, buildUs = 0, faults = 0, n = 0;
for (let round = 0; round < BUILDS; round++) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < PER; i++) {
    const k = (round * PER + i) % docs.length, d = docs[k], id = `log-${round}-${i}`;
    const doc = b.addDoc(id, '');
    b.setStored(doc, sources[k], null, 1, round * PER + i, 1);
    b.setLive(id, doc);
    for (const f of ['title', 'body'] as const) { standard.analyzeLowerSpans(d[f], tokens.clear(), 0); b.addLowerSpans(doc, f, d[f], tokens); }
    for (const f of ['level', 'host'] as const) { b.addTerm(doc, f, d[f]); b.addOrdinal(doc, f, d[f]); }
    b.addNumeric(doc, 'bytes', d.bytes);
    b.addNumeric(doc, 'ts', Date.parse(d.ts));
  }
  const added = process.cpuUsage(c0), f0 = process.resourceUsage().minorPageFault;
  kept.push(b.build(`_${round}`));
  const built = process.cpuUsage(c0), f1 = process.resourceUsage().minorPageFault;
  if (kept.length > 4) kept.shift();
  b = new SegmentBuilder(b);
  if (round < WARM) continue;
  addUs += added.user + added.system;
  buildUs += built.user + built.system - (added.user + added.system);
  faults += f1 - f0;
  n += PER;
}
console.log(`add ${(addUs / n).toFixed(2)} µs/doc; build ${(buildUs / n).toFixed(3)} µs/doc, ${(faults / n).toFixed(4)} faults/doc (${BUILDS - WARM} builds of ${PER})`);
