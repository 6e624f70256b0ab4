/** Head series structure: shared label objects, series removal. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Head } from './head.ts';
import { HeadChunkFiles } from './head-chunks.ts';
import { labelsFromRecord } from './labels.ts';
import { decodeXor } from './xor-chunk.ts';
import type { ChunkMeta } from './chunk-meta.ts';

function withHead(fn: (head: Head) => void): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'head-'));
  const files = new HeadChunkFiles(path.join(dir, 'chunks_head'));
  try { fn(new Head(7_200_000, files)); } finally { files.close(); rmSync(dir, { recursive: true, force: true }); }
}

test('head: a label pair carried by several series is one shared object; unique pairs stay their own', () => {
  withHead((head) => {
    const a = head.getOrCreate(labelsFromRecord({ __name__: 'up', job: 'api', n: '1' })).series;
    // Fresh strings, as decoded from a worker message.
    const b = head.getOrCreate(labelsFromRecord({ __name__: 'u' + 'p', job: ['a', 'pi'].join(''), n: '2' })).series;
    const la = head.labelsAt(a), lb = head.labelsAt(b);
    assert.deepEqual(lb.map((l) => `${l.name}=${l.value}`), ['__name__=up', 'job=api', 'n=2']);
    assert.equal(lb[0], la[0], '__name__=up is shared');
    assert.equal(lb[1], la[1], 'job=api is shared');
    assert.notEqual(lb[2], la[2]);
    assert.equal(head.seriesOf(labelsFromRecord({ __name__: 'up', job: 'api', n: '2' })), b);
  });
});

test('head: once the series holding a shared pair is gone, new series share the pair of one still present', () => {
  withHead((head) => {
    const a = head.getOrCreate(labelsFromRecord({ job: 'api', n: '1' })).series;
    const b = head.getOrCreate(labelsFromRecord({ job: 'api', n: '2' })).series;
    head.append(a, 1000, 1);
    head.append(b, 9_000_000, 1);
    const aRef = head.refAt(a), aLabels = head.labelsAt(a);
    assert.deepEqual(head.truncate(7_200_000), [aRef], 'a had only data before the cut');
    assert.equal(head.seriesOf(aLabels), -1);
    assert.equal(head.slotOf(aRef), -1);
    const c = head.getOrCreate(labelsFromRecord({ job: 'api', n: '3' })).series;
    assert.equal(head.labelsAt(c)[0], head.labelsAt(b)[0]);
    assert.equal(head.labelsAt(c)[0].value, 'api');
  });
});

test('head: open chunks live in the slab; closing them frees their slots for the next series', () => {
  withHead((head) => {
    const series = Array.from({ length: 300 }, (_, i) => head.getOrCreate(labelsFromRecord({ job: 'a', n: String(i) })).series);
    for (let t = 0; t < 100; t++) for (const s of series) head.append(s, t * 1000, t * 3 + head.refAt(s));
    assert.ok(head.slab.slotBytes > 300 * 32);
    const pages = head.slab.pageBytes;
    head.truncate(7_200_000);
    assert.equal(head.numSeries, 0);
    assert.equal(head.slab.slotBytes, 0, 'every open chunk was closed and its slot freed');
    const again = Array.from({ length: 300 }, (_, i) => head.getOrCreate(labelsFromRecord({ job: 'b', n: String(i) })).series);
    for (let t = 0; t < 100; t++) for (const s of again) head.append(s, 8_000_000 + t * 1000, t);
    assert.equal(head.slab.pageBytes, pages, 'the new series reuse the freed slots');
    const out = head.chunksWithBytes(again[299]);
    assert.equal(out.length, 1);
    const ts = new Float64Array(100), vs = new Float64Array(100);
    assert.equal(decodeXor(out[0].bytes, ts, vs), 100);
    assert.deepEqual([ts[0], ts[99], vs[0], vs[99]], [8_000_000, 8_099_000, 0, 99]);
  });
});

test('head: an open chunk read by a query after it was closed is read from the head chunk files', () => {
  withHead((head) => {
    const s = head.getOrCreate(labelsFromRecord({ job: 'a' })).series;
    for (let t = 0; t < 10; t++) head.append(s, t * 1000, t);
    const metas: ChunkMeta[] = [];
    head.chunksOf(head.refAt(s), 0, Infinity, metas);
    assert.equal(metas.length, 1);
    // Crossing the chunk range closes the chunk; new series' chunks then reuse its slot.
    head.append(s, 7_200_000, 99);
    for (let i = 0; i < 5; i++) head.append(head.getOrCreate(labelsFromRecord({ job: 'b', n: String(i) })).series, 7_200_000, i);
    const ts = new Float64Array(10), vs = new Float64Array(10);
    assert.equal(decodeXor(metas[0].bytes, ts, vs), 10);
    assert.deepEqual([...vs], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});

test('head: a query view of an open chunk whose series left the head reads as empty, not as the series now in its slot', () => {
  withHead((head) => {
    const a = head.getOrCreate(labelsFromRecord({ job: 'a', n: '1' })).series;
    const keep = head.getOrCreate(labelsFromRecord({ job: 'a', n: '2' })).series;
    for (let t = 0; t < 10; t++) head.append(a, t * 1000, t);
    head.append(keep, 9_000_000, 1);
    const metas: ChunkMeta[] = [];
    head.chunksOf(head.refAt(a), 0, Infinity, metas);
    assert.equal(metas.length, 1);
    const aRef = head.refAt(a);
    assert.deepEqual(head.truncate(7_200_000), [aRef]);
    // The freed slot goes to the next new series, with a chunk starting at the same time as a's did.
    const b = head.getOrCreate(labelsFromRecord({ job: 'b' })).series;
    assert.equal(b, a, 'the slot is reused');
    assert.notEqual(head.refAt(b), aRef, 'refs are never reused');
    assert.equal(head.hasOpenChunk(b), false, 'a new slot starts without a chunk');
    // Unchecked, so that b's chunk starts at 0 as a's did: a view keyed by slot and start time would read it.
    for (let t = 0; t < 3; t++) head.appendUnchecked(b, t * 1000, 50 + t);
    assert.equal(head.labelsOf(aRef).length, 0);
    assert.equal(metas[0].bytes.length, 2, 'an empty chunk (its data is in a block by now)');
    const later: ChunkMeta[] = [];
    head.chunksOf(head.refAt(b), 0, Infinity, later);
    const ts = new Float64Array(3), vs = new Float64Array(3);
    assert.equal(decodeXor(later[0].bytes, ts, vs), 3);
    assert.deepEqual([...vs], [50, 51, 52]);
  });
});
