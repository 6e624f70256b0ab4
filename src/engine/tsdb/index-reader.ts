/**
 * Reads a block's `index` file (Prometheus index format v2, written by Tessera or by Prometheus) lazily, as
 * Prometheus's index.Reader does: the TOC, the symbol table and the postings offset table are read at open
 * and kept; series entries and postings lists are read on demand with positioned reads into reused buffers,
 * so a block's heap cost is its symbols and label pairs, not its series. Every section's CRC32C is checked
 * when it is read; a mismatch is a CorruptionError naming the file and offset.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { ReadAheadFile } from './read-ahead.ts';
import type { Label } from './api.ts';
import { ByteReader, uvarintAt } from '../codec/byte-buf.ts';
import { crc32c } from '../codec/crc32c.ts';
import { CorruptionError, FormatVersionError } from '../errors.ts';
import { PROM_INDEX_MAGIC, PROM_INDEX_VERSION } from '../codec/format-ids.ts';
import type { ChunkLoc, IndexSeries } from './index-writer.ts';
import { compareUtf8 } from './labels.ts';
import { grown } from '../codec/typed-grow.ts';
import { internSymbol, releaseSymbols } from './symbol-intern.ts';

const TOC_BYTES = 6 * 8 + 4;
const TWO32 = 4294967296;
/**
 * Series entries decoded most recently, over all blocks this thread has open (a select asks for a series'
 * chunks, then its labels). Large enough that a repeated query over a few thousand series in a few blocks finds
 * them all decoded: at 256 a 1,000-series select re-decoded every entry each time, and the garbage was most of
 * its cost. One bound for all blocks, not one per block: with 360 blocks (30 days of 2 h blocks) a query over
 * them could leave up to 4,096 entries per block, ~0.2 GB per shard worker by estimate (docs/benchmarks.md,
 * issue 11). A few MB.
 */
const SERIES_CACHE_ENTRIES = 16_384;

/**
 * The cached entries of every reader in insertion order (a ring; `cachedReaders[i]` null when empty), so the
 * oldest is evicted in constant time: taking it from a Map's key iterator walked over every entry deleted
 * before it, and a select of more series than the cache holds spent most of its time there. Per thread.
 */
const cachedReaders: (BlockIndexReader | null)[] = new Array(SERIES_CACHE_ENTRIES).fill(null);
const cachedRefs = new Float64Array(SERIES_CACHE_ENTRIES);
let cacheNext = 0;

interface Toc { symbols: number; series: number; labelIndices: number; labelTable: number; postings: number; postingsTable: number }

/** Entries of the postings offset table kept in memory: one in this many per label name (Prometheus's figure). */
const POSTINGS_SAMPLE = 32;

/** One label name's run of postings offset table entries (sorted by value). */
interface NameEntries {
  /** Values of entries 0, POSTINGS_SAMPLE, 2 · POSTINGS_SAMPLE, … of the run. */
  samples: string[];
  /** File offsets of those entries. */
  sampleAt: number[];
  /** File offset just past the run's last entry. */
  end: number;
  count: number;
}

export class BlockIndexReader {
  private readonly fd: number;
  readonly sizeBytes: number;
  private readonly symbols: string[];
  /** Label name → where its postings offset table entries are, every POSTINGS_SAMPLE-th of them in memory. */
  private readonly pairs = new Map<string, NameEntries>();
  private allOffset = -1;
  private file_: ReadAheadFile | null = null;
  /** This reader's entries in the thread's series cache (`cachedReaders`). */
  private readonly seriesCache = new Map<number, IndexSeries>();
  /** `postingsWhere`'s result, reused. */
  private unionScratch = new Uint32Array(256);

  constructor(readonly file: string) {
    this.fd = openSync(file, 'r');
    let symbols: string[] | null = null;
    try {
      this.sizeBytes = fstatSync(this.fd).size;
      this.file_ = new ReadAheadFile(this.fd, this.sizeBytes);
      const head = this.read(0, 5);
      if (this.sizeBytes < 5 + TOC_BYTES || head.readUInt32BE(0) !== PROM_INDEX_MAGIC) {
        throw new CorruptionError(file, 0, `invalid magic number ${this.sizeBytes >= 4 ? head.readUInt32BE(0).toString(16) : ''}`);
      }
      if (head[4] !== PROM_INDEX_VERSION) throw new FormatVersionError(file, head[4], PROM_INDEX_VERSION, PROM_INDEX_VERSION);
      const toc = this.readToc();
      symbols = this.readSymbols(toc.symbols);
      this.symbols = symbols;
      if (toc.postingsTable !== 0) this.readPostingsTable(toc.postingsTable);
      // What opening read (TOC, symbols, the postings table) is kept in the heap now; a window left over
      // would sit in the thread's kept windows (up to 8 MB of them at ready with hundreds of blocks open).
      this.file_.release();
    } catch (e) {
      if (symbols) releaseSymbols(symbols);
      closeSync(this.fd);
      throw e;
    }
  }

  close(): void {
    closeSync(this.fd);
    this.file_?.release();
    // Out of the ring too, or its slots would keep this reader (symbols, postings table) alive after close.
    for (let i = 0; i < SERIES_CACHE_ENTRIES; i++) if (cachedReaders[i] === this) cachedReaders[i] = null;
    this.seriesCache.clear();
    releaseSymbols(this.symbols);
  }

  /** `n` bytes at `off` (a view of the read-ahead window). */
  private read(off: number, n: number): Buffer {
    const b = this.file_!.read(off, n);
    if (b.length !== n) throw new CorruptionError(this.file, off, `unexpected end of file (wanted ${n} bytes, got ${b.length})`);
    return b;
  }

  private readToc(): Toc {
    const at = this.sizeBytes - TOC_BYTES;
    const b = this.read(at, TOC_BYTES);
    if (b.readUInt32BE(48) !== crc32c(b.subarray(0, 48))) throw new CorruptionError(this.file, at, 'TOC checksum mismatch');
    const u64 = (i: number): number => b.readUInt32BE(i * 8) * TWO32 + b.readUInt32BE(i * 8 + 4);
    return { symbols: u64(0), series: u64(1), labelIndices: u64(2), labelTable: u64(3), postings: u64(4), postingsTable: u64(5) };
  }

  /** A `len <4b> · body · CRC32 <4b>` section's body (a copy), its CRC checked. */
  /** The checked body of the section at `off`, a view of the read buffer (valid until the next read). */
  private sectionView(off: number, what: string): Buffer {
    const len = this.read(off, 4).readUInt32BE(0);
    if (off + 8 + len > this.sizeBytes) throw new CorruptionError(this.file, off, `${what} length ${len} past the end of the file`);
    const b = this.read(off + 4, len + 4);
    if (b.readUInt32BE(len) !== crc32c(b.subarray(0, len))) throw new CorruptionError(this.file, off, `${what} checksum mismatch`);
    return b.subarray(0, len);
  }

  /** `sectionView`, copied: the caller keeps it. */
  private section(off: number, what: string): Uint8Array {
    return new Uint8Array(this.sectionView(off, what));
  }

  private readSymbols(off: number): string[] {
    const body = this.section(off, 'symbol table');
    const r = new ByteReader(body, this.file);
    const n = r.u32be();
    const out: string[] = new Array(n);
    let i = 0;
    try {
      for (; i < n; i++) out[i] = internSymbol(r.str());
    } catch (e) {
      releaseSymbols(out.slice(0, i));
      throw e;
    }
    return out;
  }

  /**
   * Reads the postings offset table once through (its CRC checked), keeping per label name the file offsets
   * of its entries' run and every POSTINGS_SAMPLE-th entry's value, as Prometheus's index reader does: with
   * hundreds of blocks open in each shard worker, every entry's value and offset in the heap came to 23 KB per
   * block for 1,600 series (docs/benchmarks.md, issue 11). A lookup reads at most POSTINGS_SAMPLE entries
   * back from the file (the page cache holds them).
   */
  private readPostingsTable(off: number): void {
    const body = this.sectionView(off, 'postings offset table');
    // Entries are read again from the file: `base` is the file offset of body[0].
    const base = off + 4;
    const r = new ByteReader(body, this.file);
    const n = r.u32be();
    let cur: NameEntries | null = null, curName = '';
    for (let i = 0; i < n; i++) {
      const at = base + r.pos;
      if (r.uvarint() !== 2) throw new CorruptionError(this.file, off, 'postings offset entry without two keys');
      const name = r.str(), value = r.str(), postings = r.uvarint();
      if (name === '' && value === '') { this.allOffset = postings; continue; }
      if (cur === null || name !== curName) {
        if (cur !== null) cur.end = at;
        curName = name;
        cur = { samples: [], sampleAt: [], end: 0, count: 0 };
        this.pairs.set(this.asSymbol(name), cur);
      }
      if (cur.count % POSTINGS_SAMPLE === 0) { cur.samples.push(this.asSymbol(value)); cur.sampleAt.push(at); }
      cur.count++;
      if (i === n - 1) cur.end = base + r.pos;
    }
    // An '' / '' entry last would leave the final name's end unset.
    if (cur !== null && cur.end === 0) cur.end = base + body.length;
  }

  /**
   * Walks the entries of `e` from its sample `k` on (to its end), calling `fn(value, postingsOffset)` until it
   * returns false. Values are new strings (not kept).
   */
  private walkEntries(e: NameEntries, k: number, fn: (value: string, postings: number) => boolean): void {
    const from = e.sampleAt[k];
    const b = this.read(from, e.end - from);
    const r = new ByteReader(b, this.file);
    while (r.pos < b.length) {
      if (r.uvarint() !== 2) throw new CorruptionError(this.file, from + r.pos, 'postings offset entry without two keys');
      r.skipStr();
      const value = r.str(), postings = r.uvarint();
      if (!fn(value, postings)) return;
    }
  }

  /**
   * The symbol table's string equal to `s` (every name and value of a Prometheus index is a symbol), or `s`:
   * the postings table then holds no second copy of each string. A block keeps both tables for its life, and
   * with 360 blocks open in each shard worker the copies were tens of MB by estimate (docs/benchmarks.md, issue 11).
   */
  private asSymbol(s: string): string {
    const i = binarySearch(this.symbols, s);
    return i < 0 ? s : this.symbols[i];
  }

  private symbol(i: number, off: number): string {
    const s = this.symbols[i];
    if (s === undefined) throw new CorruptionError(this.file, off, `symbol ref ${i} out of range`);
    return s;
  }

  /** The series entry with this ref (offset / 16). */
  series(ref: number): IndexSeries {
    const hit = this.seriesCache.get(ref);
    if (hit) return hit;
    const off = ref * 16;
    const headBytes = Math.min(10, this.sizeBytes - off);
    const head = this.read(off, headBytes);
    const v = uvarintAt(head, 0, headBytes);
    if (!v) throw new CorruptionError(this.file, off, 'bad series length');
    const len = v.value, start = off + v.next;
    const b = this.read(start, len + 4);
    if (b.readUInt32BE(len) !== crc32c(b.subarray(0, len))) throw new CorruptionError(this.file, off, 'series checksum mismatch');
    const r = new ByteReader(b, this.file, 0, len);
    const nl = r.uvarint();
    const labels: Label[] = new Array(nl);
    for (let i = 0; i < nl; i++) labels[i] = { name: this.symbol(r.uvarint(), off), value: this.symbol(r.uvarint(), off) };
    const nc = r.uvarint();
    const chunks: ChunkLoc[] = new Array(nc);
    let maxt = 0, cref = 0;
    for (let i = 0; i < nc; i++) {
      const mint = i === 0 ? r.varint() : maxt + r.uvarint();
      maxt = mint + r.uvarint();
      cref = i === 0 ? r.uvarint() : cref + r.varint();
      chunks[i] = { mint, maxt, ref: cref };
    }
    const s: IndexSeries = { labels, chunks };
    cachedReaders[cacheNext]?.seriesCache.delete(cachedRefs[cacheNext]);
    cachedReaders[cacheNext] = this;
    cachedRefs[cacheNext] = ref;
    cacheNext = (cacheNext + 1) % SERIES_CACHE_ENTRIES;
    this.seriesCache.set(ref, s);
    return s;
  }

  /** Entries of this reader in the thread's series cache now (for tests). */
  cachedSeries(): number { return this.seriesCache.size; }

  /** Label names, sorted. */
  labelNames(): string[] { return [...this.pairs.keys()]; }

  /** Values of `name`, sorted. */
  labelValues(name: string): readonly string[] {
    const e = this.pairs.get(name);
    const out: string[] = [];
    if (e) this.walkEntries(e, 0, (value) => { out.push(value); return true; });
    return out;
  }

  /** Series refs of `name=value` (ascending), or null when the pair does not occur. */
  postings(name: string, value: string): Uint32Array | null {
    const e = this.pairs.get(name);
    if (!e) return null;
    // The last sample at or before `value`; the entry is among the POSTINGS_SAMPLE from there.
    let lo = 0, hi = e.samples.length - 1, k = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (compareUtf8(e.samples[mid], value) <= 0) { k = mid; lo = mid + 1; } else hi = mid - 1;
    }
    if (k < 0) return null;
    let found = -1;
    this.walkEntries(e, k, (v, postings) => {
      const c = compareUtf8(v, value);
      if (c === 0) found = postings;
      return c < 0;
    });
    return found < 0 ? null : this.postingsAt(found);
  }

  /** Every series ref, ascending. */
  allPostings(): Uint32Array {
    return this.allOffset < 0 ? new Uint32Array(0) : this.postingsAt(this.allOffset);
  }

  /**
   * The refs of every value of `name` that `pick` accepts, list after list (ascending within a list, not
   * across lists), in an array reused by the next call: no copy or array per list.
   */
  postingsWhere(name: string, pick: (value: string) => boolean): Uint32Array {
    const e = this.pairs.get(name);
    if (!e) return this.unionScratch.subarray(0, 0);
    // Picked first, read after: a postings list read moves the read-ahead window off the entries.
    const picked: number[] = [];
    this.walkEntries(e, 0, (value, postings) => { if (pick(value)) picked.push(postings); return true; });
    let n = 0;
    for (let i = 0; i < picked.length; i++) n = this.appendPostings(picked[i], n);
    return this.unionScratch.subarray(0, n);
  }

  /** The values of `name` (sorted) whose postings hold a ref `has` accepts; each list is read into a reused array. */
  valuesWithAnyRef(name: string, has: (ref: number) => boolean): string[] {
    const e = this.pairs.get(name);
    const out: string[] = [];
    if (!e) return out;
    const values: string[] = [], lists: number[] = [];
    this.walkEntries(e, 0, (value, postings) => { values.push(value); lists.push(postings); return true; });
    for (let i = 0; i < values.length; i++) {
      const n = this.appendPostings(lists[i], 0);
      const refs = this.unionScratch;
      for (let j = 0; j < n; j++) if (has(refs[j])) { out.push(values[i]); break; }
    }
    return out;
  }

  /** Appends the postings list at `off` to `unionScratch` at `n`; returns the new end. */
  private appendPostings(off: number, n: number): number {
    const b = this.sectionView(off, 'postings list');
    const cnt = b.readUInt32BE(0);
    if (4 + cnt * 4 > b.length) throw new CorruptionError(this.file, off, 'postings list shorter than its count');
    if (n + cnt > this.unionScratch.length) this.unionScratch = grown(this.unionScratch, Math.max(2 * this.unionScratch.length, n + cnt));
    const out = this.unionScratch;
    for (let i = 0; i < cnt; i++) out[n + i] = b.readUInt32BE(4 + i * 4);
    return n + cnt;
  }

  private postingsAt(off: number): Uint32Array {
    const body = this.section(off, 'postings list');
    const dv = new DataView(body.buffer, body.byteOffset, body.byteLength);
    const n = dv.getUint32(0);
    if (4 + n * 4 > body.length) throw new CorruptionError(this.file, off, 'postings list shorter than its count');
    const out = new Uint32Array(n);
    for (let i = 0; i < n; i++) out[i] = dv.getUint32(4 + i * 4);
    return out;
  }
}

function binarySearch(sorted: readonly string[], x: string): number {
  let lo = 0, hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = compareUtf8(sorted[mid], x);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}
