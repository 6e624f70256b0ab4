/**
 * Reads a block's `index` file (Prometheus index format v2, written by Tessera or by Prometheus) lazily, as
 * Prometheus's index.Reader does: the TOC is read at open and the symbol table and postings offset table are
 * checked there; the symbol table is decoded when a series entry is first read, the postings offset table
 * split into per-name runs at first use and a name's values decoded when a query first asks for it; series
 * entries and postings lists are read on demand with positioned reads into reused buffers, so a block's heap
 * cost is its symbols and the names queried once it is used, not its series. Every section's CRC32C is
 * checked when it is read; a mismatch is a CorruptionError naming the file and offset.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { ReadAheadFile, SharedWindow } from './read-ahead.ts';
import type { Label } from './api.ts';
import { ByteReader } from '../codec/byte-buf.ts';
import { crc32c, crc32cShort } from '../codec/crc32c.ts';
import { CorruptionError, FormatVersionError } from '../errors.ts';
import { PROM_INDEX_MAGIC, PROM_INDEX_VERSION } from '../codec/format-ids.ts';
import { compareUtf8, hashLabelString, labelsHash, LABELS_HASH_SEED } from './labels.ts';
import { grown } from '../codec/typed-grow.ts';
import { internSymbol, releaseSymbols } from './symbol-intern.ts';

/**
 * A decoded series entry: its labels, and `mint, maxt, ref` of each chunk in turn (`ref` = chunk file sequence,
 * 0 for `000001`, · 2^32 + byte offset in that file). Flat numbers, not an object per chunk: V8 keeps them
 * unboxed in one array, where each chunk was an object and up to three heap numbers, and decoding entries
 * was the largest part of a compaction's CPU after the copy itself (docs/benchmarks.md, issue 11).
 */
export interface SeriesEntry { labels: Label[]; chunks: number[] }

const TOC_BYTES = 6 * 8 + 4;
/** Sections up to this long are checksummed here (`crc32cShort`) rather than by the native call and a view. */
const SHORT_CRC_BYTES = 64;
const TWO32 = 4294967296;
/** The window this thread's block indexes share while a select reads them (`readingThroughSharedWindows`). */
const INDEX_WINDOW = new SharedWindow();
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
 * Chunk references the cached entries may hold together (~80 bytes each as objects). A 2 h block's entry has
 * one or two, but a compacted block's has one per 2 h it spans: 16,384 entries of 20-day blocks held 4 M of them
 * (~0.3 GB), and compacting 30 days of blocks left 389,000 in a shard worker (docs/benchmarks.md, issue 11).
 * Past this bound the oldest entries go first, whatever their number.
 */
const SERIES_CACHE_CHUNKS = 65_536;

/**
 * The cached entries of every reader in insertion order (a ring; `cachedReaders[i]` null when empty), so the
 * oldest is evicted in constant time: taking it from a Map's key iterator walked over every entry deleted
 * before it, and a select of more series than the cache holds spent most of its time there. Per thread.
 */
const cachedReaders: (BlockIndexReader | null)[] = new Array(SERIES_CACHE_ENTRIES).fill(null);
const cachedRefs = new Float64Array(SERIES_CACHE_ENTRIES);
/** Chunk references of each cached entry, and their sum over the ring. */
const cachedChunks = new Int32Array(SERIES_CACHE_ENTRIES);
let cachedChunksTotal = 0;
/** The slot the next entry goes in. */
let cacheNext = 0;
/**
 * The oldest slot that may hold an entry: the entries are in `[cacheOldest, cacheNext)` around the ring (some
 * emptied by a closed reader), and the chunk bound evicts from here. Walking from `cacheNext` instead crossed
 * every empty slot before the oldest entry, up to the whole ring per entry once the bound kept a few hundred
 * entries of compacted blocks: most of a compaction's index decoding (docs/benchmarks.md, issue 11).
 */
let cacheOldest = 0;

/** Evicts what a new entry of `chunks` chunk references needs: its slot's entry, then the oldest over the bound. */
function makeRoom(chunks: number): void {
  if (cachedReaders[cacheNext] !== null) { // the ring is full: the slot is the oldest entry's
    evictCached(cacheNext);
    cacheOldest = (cacheNext + 1) % SERIES_CACHE_ENTRIES;
  }
  while (cachedChunksTotal + chunks > SERIES_CACHE_CHUNKS && cacheOldest !== cacheNext) {
    evictCached(cacheOldest);
    cacheOldest = (cacheOldest + 1) % SERIES_CACHE_ENTRIES;
  }
}

/** Empties slot `i` of the ring. */
function evictCached(i: number): void {
  const r = cachedReaders[i];
  if (r === null) return;
  r.dropCached(cachedRefs[i]);
  cachedReaders[i] = null;
  cachedChunksTotal -= cachedChunks[i];
  cachedChunks[i] = 0;
}

/** A label name's values (sorted) and each value's postings offset. */
interface NameValues { values: string[]; offsets: number[] }

/**
 * One label name's run of entries in the postings offset table: the file range `[at, end)` holding its `count`
 * entries, and its values once a query asked for the name.
 */
interface NameEntries { at: number; end: number; count: number; decoded: NameValues | null }

/** Label name → its entries; `all`: the offset of every series' list (−1: none). */
interface PostingsTable { names: Map<string, NameEntries>; all: number }

interface Toc { symbols: number; series: number; labelIndices: number; labelTable: number; postings: number; postingsTable: number }

export class BlockIndexReader {
  private readonly fd: number;
  readonly sizeBytes: number;
  private readonly toc: Toc;
  /** The symbol table, decoded at first use (`symbols`). */
  private symbols_: string[] | null = null;
  private utf16Ordered_: boolean | null = null;
  /** The postings offset table, decoded at first use (`table`). */
  private table_: PostingsTable | null = null;
  private file_: ReadAheadFile | null = null;
  /** This reader's entries in the thread's series cache (`cachedReaders`). */
  private readonly seriesCache = new Map<number, SeriesEntry>();
  /** `postingsWhere`'s result, reused. */
  private unionScratch = new Uint32Array(256);

  constructor(readonly file: string) {
    this.fd = openSync(file, 'r');
    try {
      this.sizeBytes = fstatSync(this.fd).size;
      this.file_ = new ReadAheadFile(this.fd, this.sizeBytes, INDEX_WINDOW);
      const head = this.read(0, 5);
      if (this.sizeBytes < 5 + TOC_BYTES || head.readUInt32BE(0) !== PROM_INDEX_MAGIC) {
        throw new CorruptionError(file, 0, `invalid magic number ${this.sizeBytes >= 4 ? head.readUInt32BE(0).toString(16) : ''}`);
      }
      if (head[4] !== PROM_INDEX_VERSION) throw new FormatVersionError(file, head[4], PROM_INDEX_VERSION, PROM_INDEX_VERSION);
      this.toc = this.readToc();
      // Both tables are checked now, as Prometheus's reader reads them at open, so a damaged block is refused at
      // start-up; they are decoded when first used. Decoding them at open was most of opening a block (1.3–1.6 ms
      // each, in each shard worker: 360 blocks of 30 days took ~0.9 s of a worker's start and ~60 KB of heap
      // apiece, docs/benchmarks.md, issue 11), and a query over recent data reads only the newest blocks.
      this.sectionView(this.toc.symbols, 'symbol table');
      if (this.toc.postingsTable !== 0) this.sectionView(this.toc.postingsTable, 'postings offset table');
      // A window left over would sit in the thread's kept windows (up to 8 MB of them with hundreds of blocks open).
      this.file_.release();
    } catch (e) {
      closeSync(this.fd);
      throw e;
    }
  }

  /** The symbol table (every label name and value), decoded and interned at first use. */
  private get symbols(): string[] {
    if (this.symbols_ === null) {
      this.symbols_ = this.readSymbols(this.toc.symbols);
      this.file_!.release();
    }
    return this.symbols_;
  }

  /**
   * Whether every symbol is below U+D800, where UTF-16 code unit order (`compareLabels`) is the UTF-8 byte
   * order the series are sorted in: then ascending series refs are in `compareLabels` order.
   */
  get utf16Ordered(): boolean {
    if (this.utf16Ordered_ === null) {
      // A table whose bytes are all ASCII (past the count; a length of 128 or more has a byte ≥ 0x80 and only
      // sends this to the exact check) holds no symbol at or above U+D800: answered without decoding it, which
      // every select asks of every block it reads.
      const b = this.sectionView(this.toc.symbols, 'symbol table');
      let ascii = true;
      for (let i = 4; i < b.length; i++) if (b[i] >= 0x80) { ascii = false; break; }
      this.file_!.release();
      this.utf16Ordered_ = ascii || this.symbols.every((s) => !/[\ud800-\uffff]/.test(s));
    }
    return this.utf16Ordered_;
  }

  /** The postings offset table's label names and where each name's entries are, read at first use. */
  private get table(): PostingsTable {
    if (this.table_ === null) {
      this.table_ = this.toc.postingsTable === 0 ? { names: new Map(), all: -1 } : this.readPostingsTable(this.toc.postingsTable);
      this.file_!.release();
    }
    return this.table_;
  }

  /**
   * The entries of `name`, their values and offsets decoded at first use. Only the names a query asks for are
   * decoded, as Prometheus's reader keeps only a sample of the table: a selector by metric name decoded every
   * block's whole table, thousands of per-series ids included, and with 360 blocks that was most of a shard
   * worker's first query and of the tables' memory (docs/benchmarks.md, issue 11).
   */
  private entriesOf(name: string): NameValues | undefined {
    const e = this.table.names.get(name);
    if (e === undefined) return undefined;
    if (e.decoded !== null) return e.decoded;
    const r = new ByteReader(this.read(e.at, e.end - e.at), this.file, 0, e.end - e.at);
    const values: string[] = new Array(e.count), offsets: number[] = new Array(e.count);
    // Shared with the symbol table when that is decoded (every name and value of a v2 index is a symbol).
    const shared = this.symbols_ !== null;
    for (let i = 0; i < e.count; i++) {
      r.uvarint();
      const nameLen = r.uvarint();
      r.pos += nameLen;
      const v = r.str();
      values[i] = shared ? this.asSymbol(v) : v;
      offsets[i] = r.uvarint();
    }
    this.file_!.release();
    return (e.decoded = { values, offsets });
  }

  close(): void {
    closeSync(this.fd);
    this.file_?.release();
    // Out of the ring too, or its slots would keep this reader (symbols, postings table) alive after close.
    for (let i = 0; i < SERIES_CACHE_ENTRIES; i++) if (cachedReaders[i] === this) evictCached(i);
    this.seriesCache.clear();
    if (this.symbols_ !== null) releaseSymbols(this.symbols_);
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

  /** Body length of the section `sectionAt` last checked: its second result, without an object per call. */
  private sectionLen = 0;

  /**
   * Checks the `len <4b> · body · CRC32 <4b>` section at `off` and returns where its body starts in the read
   * window (`file_.windowBytes`, valid until the next read), its length in `sectionLen`. Short bodies are
   * checksummed in JavaScript: a regex over a per-series id reads thousands of one-entry postings lists, and a
   * view and a native checksum call each (about a microsecond) were most of reading them.
   */
  private sectionAt(off: number, what: string): number {
    const f = this.file_!;
    let at = f.at(off, 4);
    if (f.windowLength - at < 4) throw new CorruptionError(this.file, off, `unexpected end of file (wanted 4 bytes, got ${f.windowLength - at})`);
    const len = f.windowBytes.readUInt32BE(at);
    if (off + 8 + len > this.sizeBytes) throw new CorruptionError(this.file, off, `${what} length ${len} past the end of the file`);
    at = f.at(off + 4, len + 4);
    const b = f.windowBytes;
    if (f.windowLength - at < len + 4) throw new CorruptionError(this.file, off + 4, `unexpected end of file (wanted ${len + 4} bytes, got ${f.windowLength - at})`);
    const crc = len <= SHORT_CRC_BYTES ? crc32cShort(b, at, at + len) : crc32c(b.subarray(at, at + len));
    if (b.readUInt32BE(at + len) !== crc) throw new CorruptionError(this.file, off, `${what} checksum mismatch`);
    this.sectionLen = len;
    return at;
  }

  /** The checked body of the section at `off`, a view of the read window (valid until the next read). */
  private sectionView(off: number, what: string): Buffer {
    const at = this.sectionAt(off, what);
    return this.file_!.windowBytes.subarray(at, at + this.sectionLen);
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
   * Finds each label name's run of entries (the table is sorted by name, then value) without decoding the
   * values: a name is decoded only where it changes, compared byte for byte with the previous one.
   */
  private readPostingsTable(off: number): PostingsTable {
    const body = this.sectionView(off, 'postings offset table');
    const base = off + 4; // file offset of body[0]
    const r = new ByteReader(body, this.file);
    const n = r.u32be();
    const t: PostingsTable = { names: new Map(), all: -1 };
    let cur: NameEntries | null = null;
    let nameStart = 0, nameLen = -1;
    for (let i = 0; i < n; i++) {
      const entryAt = r.pos;
      if (r.uvarint() !== 2) throw new CorruptionError(this.file, base + entryAt, 'postings offset entry without two keys');
      const nameAt = r.pos, len = r.uvarint(), start = r.pos;
      if (len > r.remaining) throw new CorruptionError(this.file, base + start, 'postings offset entry past the end of the table');
      r.pos += len;
      const valueLen = r.uvarint();
      if (valueLen > r.remaining) throw new CorruptionError(this.file, base + r.pos, 'postings offset entry past the end of the table');
      r.pos += valueLen;
      const at = r.uvarint();
      if (len === 0 && valueLen === 0) { t.all = at; continue; }
      if (cur === null || len !== nameLen || body.compare(body, nameStart, nameStart + len, start, start + len) !== 0) {
        if (cur !== null) cur.end = base + entryAt;
        const after = r.pos;
        r.pos = nameAt;
        const name = r.str();
        r.pos = after;
        cur = { at: base + entryAt, end: 0, count: 0, decoded: null };
        t.names.set(name, cur);
        nameStart = start;
        nameLen = len;
      }
      cur.count++;
    }
    if (cur !== null) cur.end = base + r.pos;
    return t;
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

  /**
   * A reader over the checksummed body of the series entry with this ref (offset / 16), in the read window.
   * Positions in the window rather than views of it, and short bodies checksummed here (as `sectionAt`): a
   * compaction reads every entry of its inputs, and the views, the varint's result object and the native
   * checksum call were most of an entry's cost outside its decoding.
   */
  private entry(ref: number): ByteReader {
    // The entry's symbols are decoded first, when not yet: decoding reads the file, which inside
    // `readingThroughSharedWindows` would overwrite the window this entry is read from.
    void this.symbols;
    const off = ref * 16;
    const f = this.file_!;
    const headBytes = Math.min(10, this.sizeBytes - off);
    let at = f.at(off, headBytes);
    let w = f.windowBytes;
    const lim = Math.min(at + headBytes, f.windowLength);
    let len = 0, mul = 1, p = at;
    for (;;) {
      if (p >= lim) throw new CorruptionError(this.file, off, 'bad series length');
      const x = w[p++];
      len += (x & 0x7f) * mul;
      if ((x & 0x80) === 0) break;
      mul *= 128;
    }
    const start = off + (p - at);
    at = f.at(start, len + 4);
    w = f.windowBytes;
    if (f.windowLength - at < len + 4) throw new CorruptionError(this.file, start, `unexpected end of file (wanted ${len + 4} bytes, got ${f.windowLength - at})`);
    const crc = len <= SHORT_CRC_BYTES ? crc32cShort(w, at, at + len) : crc32c(w.subarray(at, at + len));
    if (w.readUInt32BE(at + len) !== crc) throw new CorruptionError(this.file, off, 'series checksum mismatch');
    return new ByteReader(w, this.file, at, at + len);
  }

  /**
   * `labelsHash` of the series with this ref, read from its entry without decoding it into objects or
   * caching it: a shard worker decides with it which series of a shared block are its own, and for the other
   * shard's half (every series of every block a query reads, 360 blocks for 30 days) building and caching
   * the entry was most of that decision's cost and pushed its own series out of the cache.
   */
  labelsHashOf(ref: number): number {
    const hit = this.seriesCache.get(ref);
    if (hit) return labelsHash(hit.labels);
    const r = this.entry(ref);
    const off = ref * 16;
    let h = LABELS_HASH_SEED;
    for (let i = 0, nl = r.uvarint(); i < nl; i++) h = hashLabelString(hashLabelString(h, this.symbol(r.uvarint(), off)), this.symbol(r.uvarint(), off));
    return h | 0;
  }

  /**
   * The series entry with this ref (offset / 16), from the thread's cache or decoded and cached; with `cache`
   * false a decoded entry is not cached (a reader that reads each entry once).
   */
  series(ref: number, cache = true): SeriesEntry {
    const hit = this.seriesCache.get(ref);
    if (hit) return hit;
    const off = ref * 16;
    const r = this.entry(ref);
    const nl = r.uvarint();
    const labels: Label[] = new Array(nl);
    for (let i = 0; i < nl; i++) labels[i] = { name: this.symbol(r.uvarint(), off), value: this.symbol(r.uvarint(), off) };
    const nc = r.uvarint();
    const chunks: number[] = [];
    let maxt = 0, cref = 0;
    for (let i = 0; i < nc; i++) {
      const mint = i === 0 ? r.varint() : maxt + r.uvarint();
      maxt = mint + r.uvarint();
      cref = i === 0 ? r.uvarint() : cref + r.varint();
      chunks.push(mint, maxt, cref);
    }
    const s: SeriesEntry = { labels, chunks };
    if (!cache) return s;
    makeRoom(nc);
    cachedReaders[cacheNext] = this;
    cachedRefs[cacheNext] = ref;
    cachedChunks[cacheNext] = nc;
    cachedChunksTotal += nc;
    cacheNext = (cacheNext + 1) % SERIES_CACHE_ENTRIES;
    this.seriesCache.set(ref, s);
    return s;
  }

  /** Forgets the cached entry of `ref` (the ring evicted it). */
  dropCached(ref: number): void { this.seriesCache.delete(ref); }

  /** Entries of this reader in the thread's series cache now (for tests). */
  cachedSeries(): number { return this.seriesCache.size; }

  /** Label names, sorted. */
  labelNames(): string[] { return [...this.table.names.keys()]; }

  /** Values of `name`, sorted. */
  labelValues(name: string): readonly string[] { return this.entriesOf(name)?.values ?? []; }

  /** Series refs of `name=value` (ascending), or null when the pair does not occur. */
  postings(name: string, value: string): Uint32Array | null {
    const e = this.entriesOf(name);
    if (!e) return null;
    const i = binarySearch(e.values, value);
    return i < 0 ? null : this.postingsAt(e.offsets[i]);
  }

  /** Every series ref, ascending. */
  allPostings(): Uint32Array {
    const all = this.table.all;
    return all < 0 ? new Uint32Array(0) : this.postingsAt(all);
  }

  /**
   * The refs of every value of `name` that `pick` accepts, list after list (ascending within a list, not
   * across lists), in an array reused by the next call: no copy or array per list.
   */
  postingsWhere(name: string, pick: (value: string) => boolean): Uint32Array {
    const e = this.entriesOf(name);
    let n = 0;
    if (e) for (let i = 0; i < e.values.length; i++) if (pick(e.values[i])) n = this.appendPostings(e.offsets[i], n);
    return this.unionScratch.subarray(0, n);
  }

  /** The values of `name` (sorted) whose postings hold a ref `has` accepts; each list is read into a reused array. */
  valuesWithAnyRef(name: string, has: (ref: number) => boolean): string[] {
    const e = this.entriesOf(name);
    const out: string[] = [];
    if (!e) return out;
    for (let i = 0; i < e.values.length; i++) {
      const n = this.appendPostings(e.offsets[i], 0);
      const refs = this.unionScratch;
      for (let j = 0; j < n; j++) if (has(refs[j])) { out.push(e.values[i]); break; }
    }
    return out;
  }

  /** Appends the postings list at `off` to `unionScratch` at `n` (read in place in the window); returns the new end. */
  private appendPostings(off: number, n: number): number {
    const at = this.sectionAt(off, 'postings list'), len = this.sectionLen;
    const b = this.file_!.windowBytes;
    const cnt = len >= 4 ? b.readUInt32BE(at) : -1;
    if (cnt < 0 || 4 + cnt * 4 > len) throw new CorruptionError(this.file, off, 'postings list shorter than its count');
    if (n + cnt > this.unionScratch.length) this.unionScratch = grown(this.unionScratch, Math.max(2 * this.unionScratch.length, n + cnt));
    const out = this.unionScratch;
    for (let i = 0; i < cnt; i++) out[n + i] = b.readUInt32BE(at + 4 + i * 4);
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
