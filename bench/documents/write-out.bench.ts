/**
 * CPU per document of a shard worker's write-out (`writeSegment` over in-memory segments), in process: buffers
 * of load-test log documents (loadtest/documents-scale.ts's generator) built into in-memory segments as the
 * refresh builds them (12,000 documents each: about one refresh of a worker in the bulk probe), then written
 * to disk together as one segment, as `ShardIndex` does when the worker's index buffer is full (four or five
 * of them per write-out on the bulk probe). Not fsynced (the write-out leaves that to the commit).
 *
 *   node --import tsx bench/documents/write-out.bench.ts [writes=6] [segments=4] [docsPerSegment=12000]
 *
 * The first write is warm-up (not counted). Prints µs per document written (process CPU: the stored blocks'
 * DEFLATE included) and minor page faults per document.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SegmentBuilder } from '../../src/engine/postings/segment-builder.ts';
import { AnalyzerRegistry } from '../../src/engine/analysis/analyzers.ts';
import { TokenBuf } from '../../src/engine/analysis/token-buf.ts';
import type { MemorySegment } from '../../src/engine/postings/memory-segment.ts';
import { writeSegment } from '../../src/engine/segments/segment-writer.ts';
import { logDocument, logVocabulary } from '../../loadtest/support/log-docs.ts';
import { mulberry32 } from '../support/mulberry32.ts';

const WRITES = Number(process.argv[2] ?? 6), SEGS = Number(process.argv[3] ?? 4), PER = Number(process.argv[4] ?? 12_000);
const vocab = logVocabulary(), r = mulberry32(7);
const standard = new AnalyzerRegistry().get('standard')!;
const tokens = new TokenBuf();
interface LogDoc { title: string; body: string; level: string; host: string; bytes: number; ts: string }

let b = new SegmentBuilder(), serial = 0;
function buildSegment(): MemorySegment {
  for (let i = 0; i < PER; i++) {
    const text = logDocument(vocab, r), d = JSON.parse(text) as LogDoc, id = `log-${serial++}`;
    const doc = b.addDoc(id, '');
    b.setStored(doc, Buffer.from(text), null, 1, serial, 1);
    b.setLive(id, doc);
    for (const f of ['title', 'body'] as const) { standard.analyzeLowerSpans(d[f], tokens.clear(), 0); b.addLowerSpans(doc, f, d[f], tokens); }
    for (const f of ['level', 'host'] as const) { b.addTerm(doc, f, d[f]); b.addOrdinal(doc, f, d[f]); }
    b.addNumeric(doc, 'bytes', d.bytes);
    b.addNumeric(doc, 'ts', Date.parse(d.ts));
  }
  const seg = b.build(`_m${serial}`);
  b = new SegmentBuilder(b);
  return seg;
}

const dir = mkdtempSync(join(tmpdir(), 'write-out-bench-'));
let us = 0, faults = 0, docs = 0;
try {
  for (let w = 0; w < WRITES; w++) {
    const segs: MemorySegment[] = [];
    for (let s = 0; s < SEGS; s++) segs.push(buildSegment());
    const c0 = process.cpuUsage(), f0 = process.resourceUsage().minorPageFault;
    await writeSegment(dir, `_w${w}`, segs.map((seg) => ({ seg, live: null })), { sync: false, yieldEvery: async () => {} });
    const c = process.cpuUsage(c0), f1 = process.resourceUsage().minorPageFault;
    if (w === 0) continue;
    us += c.user + c.system;
    faults += f1 - f0;
    docs += SEGS * PER;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`write-out ${(us / docs).toFixed(2)} µs/doc, ${(faults / docs).toFixed(4)} faults/doc (${WRITES - 1} writes of ${SEGS} segments of ${PER})`);
