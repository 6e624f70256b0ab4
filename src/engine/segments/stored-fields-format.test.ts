/**
 * Stored-field blocks read back in any order: a fetch inflates a block only up to the entry it reads, and a
 * later read further into a partly inflated block inflates it again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StoredFieldsReader, StoredFieldsWriter, STORED_BLOCK_BYTES, type StoredEntry } from './stored-fields-format.ts';
import { CorruptionError } from '../errors.ts';
import type { RegionRef, RegionSource, SegmentFileWriter } from './segment-file.ts';
import { mulberry32 } from '../../../bench/support/mulberry32.ts';

/** Regions kept in memory: offsets are region numbers. */
function memoryFile(): { writer: SegmentFileWriter; source: RegionSource; regions: Uint8Array[] } {
  const regions: Uint8Array[] = [];
  const writer = { region: (p: Uint8Array): RegionRef => { regions.push(p.slice()); return { off: regions.length - 1, len: p.byteLength }; } } as unknown as SegmentFileWriter;
  const read = (ref: RegionRef): Uint8Array => regions[ref.off];
  return { writer, regions, source: { path: 'mem.fdt', readRegion: read, readRegionTransient: read } };
}

function entries(count: number, seed: number): StoredEntry[] {
  const r = mulberry32(seed);
  const out: StoredEntry[] = [];
  for (let i = 0, doc = 0; i < count; i++, doc += 1 + Math.floor(r() * 3)) {
    // Sources from a few bytes to several blocks' worth, so entries cross inflate steps and blocks.
    const size = r() < 0.02 ? Math.floor(r() * STORED_BLOCK_BYTES * 3) : Math.floor(r() * 900);
    const source = new Uint8Array(size);
    for (let j = 0; j < size; j++) source[j] = 97 + Math.floor(r() * 26 * (j % 7 === 0 ? 1 : 0.2));
    out.push({ doc, id: `id-${i}-é`, routing: r() < 0.2 ? `r${i}` : null, seqNo: Math.floor(r() * 2 ** 40), version: 1 + i, primaryTerm: 1 + (i % 3), source });
  }
  return out;
}

function written(list: StoredEntry[]): { reader: () => StoredFieldsReader; regions: Uint8Array[] } {
  const f = memoryFile();
  const w = new StoredFieldsWriter(f.writer);
  for (const e of list) w.add(e.doc, e.id, e.routing, e.seqNo, e.version, e.primaryTerm, e.source);
  const index = w.finish();
  return { regions: f.regions, reader: () => new StoredFieldsReader(f.source, index) };
}

const plain = (e: StoredEntry) => ({ ...e, source: Buffer.from(e.source).toString('latin1') });

for (const [what, order] of [
  ['ascending', (n: number) => Array.from({ length: n }, (_, i) => i)],
  ['descending', (n: number) => Array.from({ length: n }, (_, i) => n - 1 - i)],
  ['random', (n: number) => { const r = mulberry32(5); return Array.from({ length: n * 2 }, () => Math.floor(r() * n)); }],
] as const) {
  test(`stored fields read back in ${what} order`, () => {
    const list = entries(600, 11);
    const { reader } = written(list);
    const r = reader();
    assert.ok(r.blockCount > 10);
    for (const i of order(list.length)) assert.deepEqual(plain(r.get(list[i].doc)), plain(list[i]), `entry ${i}`);
  });
}

test('entries() yields every entry whole after partial fetches', () => {
  const list = entries(300, 3);
  const { reader } = written(list);
  const r = reader();
  for (let i = 0; i < list.length; i += 7) r.get(list[i].doc);
  assert.deepEqual([...r.entries()].map(plain), list.map(plain));
});

test('a missing doc and a damaged block are corruption, partly inflated or not', () => {
  const list = entries(200, 8);
  const { reader, regions } = written(list);
  const r = reader();
  assert.throws(() => r.get(list[1].doc - 1 === list[0].doc ? list[list.length - 1].doc + 1 : list[1].doc - 1), CorruptionError);
  // Truncate block 2's compressed bytes: a read of its last entry runs out of input.
  const b = 2;
  const first = r.blockFirstDoc(b), next = r.blockFirstDoc(b + 1);
  const last = list.filter((e) => e.doc >= first && e.doc < next).at(-1)!;
  regions[b] = regions[b].subarray(0, regions[b].byteLength >> 1);
  assert.throws(() => reader().get(last.doc), (e: unknown) => e instanceof CorruptionError && /stored block/.test(e.message));
});

test('a fetch of a block\'s first entry inflates only the start of the block; the block read last serves the next reads of it', () => {
  // Small, equal entries: a block holds many, so its first one ends within the first inflate step.
  const list = entries(400, 21).map((e, i) => ({ ...e, doc: i, source: e.source.subarray(0, Math.min(e.source.byteLength, 200)) }));
  const { reader } = written(list);
  const r = reader();
  const next = r.blockFirstDoc(1);
  assert.deepEqual(plain(r.get(0)), plain(list[0]));
  const part = r.inflatedBytes;
  assert.deepEqual(plain(r.get(next - 1)), plain(list[next - 1]));
  const whole = r.inflatedBytes - part;
  assert.ok(part * 2 < whole, `first entry inflated ${part} bytes, the whole block ${whole}`);
  assert.deepEqual(plain(r.get(1)), plain(list[1]));
  assert.equal(r.inflatedBytes, part + whole, 'the whole block serves every later read of it');
  assert.deepEqual(plain(r.get(next)), plain(list[next]));
  assert.ok(r.inflatedBytes > part + whole, 'another block is inflated');
  assert.deepEqual(plain(r.get(0)), plain(list[0]));
  assert.ok(r.inflatedBytes > part + whole + part / 2, 'a block read before is inflated again: no cache across reads of other blocks');
});
