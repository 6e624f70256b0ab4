/**
 * Stored fields (`.fdt`, docs/format.md "Document segments"): root docs in doc order, grouped into blocks of
 * about STORED_BLOCK_BYTES of raw payload, each block compressed into one checked region (as Lucene's
 * compressed stored-field blocks). The block index (first doc and region of every block) lives in `.tip`.
 *
 * Region payload: codec u8 (STORED_CODEC_DEFLATE: raw DEFLATE, RFC 1951), then the compressed block. DEFLATE
 * rather than snappy (measured on seeded log documents, 16 KiB blocks): 0.43 of the raw size against snappy's
 * 0.62, and 0.03 ms to inflate a block in node's zlib — compression is what keeps a shard within the raw JSON's
 * size, and decompression stays far below a search's budget.
 *
 * Raw block payload: count uvarint, then per doc: doc − first doc of the block (uvarint), `_id` (uvarint byte
 * length + UTF-8), routing (uvarint byte length + 1, 0 = none, then UTF-8), seq_no, version, primary term
 * (uvarints), source (uvarint byte length + bytes).
 */
import { ByteReader, ByteWriter } from '../codec/byte-buf.ts';
import { deflateRawTransient, inflateRawPrefix, type InflatedPrefix } from '../codec/zlib-reuse.ts';
import { CorruptionError } from '../errors.ts';
import type { RegionRef, RegionSource, SegmentFileWriter } from './segment-file.ts';

/**
 * 4 KiB: a search fetches one doc from each hit's block, so the inflate per hit grows with the block. Measured
 * on seeded log documents: 8 KiB blocks compress to 0.449 of the raw size and inflate in 0.70× the CPU of 16 KiB
 * blocks (0.432); 4 KiB blocks 0.471 and 0.48×. With blocks inflated only up to the entry fetched
 * (measured 2026-11-27 on 100,000 load-test documents, random gets without a cache): 8 KiB 0.492 of the
 * raw sources and 33.6 µs per get, 4 KiB 0.518 and 24.5 µs, 2 KiB 0.556 and 19.7 µs.
 */
export const STORED_BLOCK_BYTES = 4 * 1024;
export const STORED_CODEC_DEFLATE = 1;
/** zlib level of stored blocks: 1 (fastest) loses little ratio on this data and costs a third of level 6. */
const DEFLATE_LEVEL = 1;

/** One root doc's stored data, as kept in a block. */
export interface StoredEntry { doc: number; id: string; routing: string | null; seqNo: number; version: number; primaryTerm: number; source: Uint8Array }

export interface StoredIndex { firstDocs: number[]; blockOff: number[]; blockLen: number[] }

const enc = new TextEncoder();

export class StoredFieldsWriter {
  private readonly w = new ByteWriter(STORED_BLOCK_BYTES * 2);
  private readonly raw = new ByteWriter(STORED_BLOCK_BYTES * 2);
  private readonly payload = new ByteWriter(STORED_BLOCK_BYTES * 2);
  private count = 0;
  private first = 0;
  readonly index: StoredIndex = { firstDocs: [], blockOff: [], blockLen: [] };

  constructor(private readonly file: SegmentFileWriter, private readonly blockBytes = STORED_BLOCK_BYTES) {}

  /** Appends root doc `doc` (docs ascending). */
  add(doc: number, id: string, routing: string | null, seqNo: number, version: number, primaryTerm: number, source: Uint8Array): void {
    if (this.count === 0) this.first = doc;
    this.w.uvarint(doc - this.first);
    this.w.str(id);
    if (routing === null) this.w.uvarint(0);
    else { const r = enc.encode(routing); this.w.uvarint(r.byteLength + 1); this.w.bytes(r); }
    this.w.uvarint(seqNo);
    this.w.uvarint(version);
    this.w.uvarint(primaryTerm);
    this.w.uvarint(source.byteLength);
    this.w.bytes(source);
    this.count++;
    if (this.w.len >= this.blockBytes) this.flushBlock();
  }

  private flushBlock(): void {
    if (this.count === 0) return;
    // The block (its entry count, then the entries) and its payload are built in reused buffers: two fresh
    // block-sized arrays per block were a kilobyte of garbage per document written.
    const raw = this.raw, payload = this.payload;
    raw.len = 0;
    raw.uvarint(this.count);
    raw.bytes(this.w.buf.subarray(0, this.w.len));
    const packed = deflateRawTransient(raw.buf.subarray(0, raw.len), DEFLATE_LEVEL);
    payload.len = 0;
    payload.u8(STORED_CODEC_DEFLATE);
    payload.bytes(packed);
    const ref = this.file.region(payload.buf.subarray(0, payload.len));
    this.index.firstDocs.push(this.first);
    this.index.blockOff.push(ref.off);
    this.index.blockLen.push(ref.len);
    this.w.len = 0;
    this.count = 0;
  }

  /**
   * Appends a block as another segment wrote it (`StoredFieldsReader.compressedBlock`), its first doc renumbered
   * to `first`: entries keep doc offsets from their block's first doc, so a block whose docs all move by the same
   * amount needs no inflating and no compressing (as Lucene's stored-fields bulk merge copies chunks).
   */
  addCompressedBlock(first: number, payload: Uint8Array): void {
    this.flushBlock();
    const ref = this.file.region(payload);
    this.index.firstDocs.push(first);
    this.index.blockOff.push(ref.off);
    this.index.blockLen.push(ref.len);
  }

  finish(): StoredIndex {
    this.flushBlock();
    return this.index;
  }
}

/**
 * An inflated block, or its start: its docs and where each doc's entry starts; entries are decoded only when
 * asked for. A search's fetch inflates a block only up to the entry it reads (`complete` false then).
 */
interface InflatedBlock { raw: Uint8Array; docs: Uint32Array; starts: Uint32Array; complete: boolean }

/** Output inflated between two checks whether a fetch has its entry (1 KiB steps measured slower: more calls). */
const INFLATE_STEP = 2 * 1024;

/** Reads a uvarint at `pos` of `buf` below `len` into `varint.value`; the position after it, or −1 past `len`. */
const varint = { value: 0 };
function readUvarint(buf: Uint8Array, pos: number, len: number): number {
  let v = 0, mul = 1;
  for (;;) {
    if (pos >= len) return -1;
    const b = buf[pos++];
    v += (b & 0x7f) * mul;
    if (b < 0x80) { varint.value = v; return pos; }
    mul *= 128;
  }
}

/** The end of the entry starting at `pos` (its doc offset in `varint.value` after), or −1 when it passes `len`. */
function entryEnd(buf: Uint8Array, pos: number, len: number): number {
  let p = readUvarint(buf, pos, len);
  if (p < 0) return -1;
  const docOffset = varint.value;
  if ((p = readUvarint(buf, p, len)) < 0) return -1;
  p += varint.value;
  if ((p = readUvarint(buf, p, len)) < 0) return -1;
  if (varint.value > 0) p += varint.value - 1;
  for (let i = 0; i < 3; i++) if ((p = readUvarint(buf, p, len)) < 0) return -1;
  if ((p = readUvarint(buf, p, len)) < 0) return -1;
  p += varint.value;
  if (p > len) return -1;
  varint.value = docOffset;
  return p;
}

const utf8 = new TextDecoder();

export class StoredFieldsReader {
  /**
   * The block read last, kept for the next read of the same block (several hits of one fetch in a block, a
   * scroll or reindex reading consecutive docs). Blocks are not kept across searches — as Lucene, which
   * decompresses stored fields per fetch and leaves the compressed bytes to the page cache: a search's hits
   * fall at random across the shard (a cache of inflated blocks hit 5% of fetches on 1M load-test documents),
   * and keeping each inflated block meant a copy of it in fresh memory (~15 µs a page on this project's
   * virtual machines). Measured in process, `bench/search/shard-query.bench.ts` on a kept 1M-doc shard: fetch
   * median 302–316 → 252–257 µs for 2-term AND, 367–380 → 343–346 µs for the date-sorted range query.
   */
  private last: { b: number; block: InflatedBlock } | null = null;
  /** Bytes inflated so far (how much of its blocks this reader had to decompress). */
  inflatedBytes = 0;

  constructor(private readonly file: RegionSource, private readonly index: StoredIndex) {}

  /** The stored entry of root doc `doc`; CorruptionError when the index says it should exist and it does not. */
  get(doc: number): StoredEntry {
    const f = this.index.firstDocs;
    let lo = 0, hi = f.length;
    while (lo < hi) { const m = (lo + hi) >>> 1; if (f[m] <= doc) lo = m + 1; else hi = m; }
    const b = lo - 1;
    if (b < 0) throw new CorruptionError(this.file.path, 0, `no stored fields for doc ${doc}`);
    const m = this.last;
    let block: InflatedBlock;
    if (m !== null && m.b === b && (m.block.complete || m.block.docs[m.block.docs.length - 1] >= doc)) block = m.block;
    else { block = this.load(b, doc); this.last = { b, block }; }
    lo = 0; hi = block.docs.length;
    while (lo < hi) { const m = (lo + hi) >>> 1; if (block.docs[m] < doc) lo = m + 1; else hi = m; }
    if (lo >= block.docs.length || block.docs[lo] !== doc) throw new CorruptionError(this.file.path, this.index.blockOff[b], `doc ${doc} missing from its stored block`);
    return this.entry(block, lo);
  }

  get blockCount(): number { return this.index.firstDocs.length; }
  blockFirstDoc(b: number): number { return this.index.firstDocs[b]; }

  /** Block `b` as written (codec byte, then the compressed bytes), checked; valid until the next transient read. */
  compressedBlock(b: number): Uint8Array {
    const ref: RegionRef = { off: this.index.blockOff[b], len: this.index.blockLen[b] };
    const payload = this.file.readRegionTransient(ref);
    if (payload[0] !== STORED_CODEC_DEFLATE) throw new CorruptionError(this.file.path, ref.off, `unknown stored-fields codec ${payload[0]}`);
    return payload;
  }

  /** Every stored entry in doc order (merges read sequentially). */
  *entries(): Generator<StoredEntry> {
    for (let b = 0; b < this.index.firstDocs.length; b++) {
      const block = this.load(b);
      for (let i = 0; i < block.docs.length; i++) yield this.entry(block, i);
    }
  }

  private entry(block: InflatedBlock, i: number): StoredEntry {
    const r = new ByteReader(block.raw, this.file.path, block.starts[i]);
    r.uvarint();
    const id = r.str();
    const rl = r.uvarint();
    const routing = rl === 0 ? null : utf8.decode(r.bytes(rl - 1));
    const seqNo = r.uvarint(), version = r.uvarint(), primaryTerm = r.uvarint();
    const source = r.bytes(r.uvarint());
    return { doc: block.docs[i], id, routing, seqNo, version, primaryTerm, source };
  }

  /**
   * Inflates block `b` — only as far as the entry of doc `upToDoc` when that is given — and finds its entries'
   * starts (skipping over their bytes: no strings or objects).
   */
  private load(b: number, upToDoc = Infinity): InflatedBlock {
    const ref: RegionRef = { off: this.index.blockOff[b], len: this.index.blockLen[b] };
    // Inflating copies the block out, so the region itself can be read into the reused buffer.
    const payload = this.file.readRegionTransient(ref);
    if (payload[0] !== STORED_CODEC_DEFLATE) throw new CorruptionError(this.file.path, ref.off, `unknown stored-fields codec ${payload[0]}`);
    const first = this.index.firstDocs[b];
    // Entries found so far, filled in as the output grows: `count` is the block's entry count once read.
    let count = -1, found = 0, pos = 0;
    let upTo = upToDoc;
    let docs = new Uint32Array(0), starts = new Uint32Array(0);
    const scan = (out: Uint8Array, len: number): boolean => {
      if (count < 0) {
        pos = readUvarint(out, 0, len);
        if (pos < 0) return false;
        count = varint.value;
        docs = new Uint32Array(count);
        starts = new Uint32Array(count);
      }
      while (found < count) {
        const end = entryEnd(out, pos, len);
        if (end < 0) return false;
        starts[found] = pos;
        docs[found++] = first + varint.value;
        pos = end;
        if (first + varint.value >= upTo) return true;
      }
      return true;
    };
    let inflated: InflatedPrefix;
    try { inflated = inflateRawPrefix(payload.subarray(1), INFLATE_STEP, scan); } catch (e) {
      throw new CorruptionError(this.file.path, ref.off, `stored block does not decompress: ${(e as Error).message}`);
    }
    const { out, complete } = inflated;
    // With the whole block inflated, every entry is found: the kept block then serves any later read of it.
    upTo = Infinity;
    if (complete && (!scan(out, out.byteLength) || found < count)) throw new CorruptionError(this.file.path, ref.off, `stored block ends inside an entry`);
    this.inflatedBytes += out.byteLength;
    // The inflated bytes are copied out of the reused buffer: entries returned keep views of them.
    const raw = out.slice(0, pos);
    const n = found;
    return { raw, docs: docs.subarray(0, n), starts: starts.subarray(0, n), complete: n === count };
  }
}
