/**
 * An immutable Prometheus block directory `<ULID>/` (meta.json, index, chunks/NNNNNN, tombstones), written by
 * Tessera or by Prometheus, opened for queries. The index is read lazily (BlockIndexReader); chunk bytes are
 * read on demand with positioned reads (the worker thread may block on disk; the main thread never calls this).
 */
import { crc32c, crc32cShort } from '../codec/crc32c.ts';
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { ReadAheadFile, SharedWindow } from './read-ahead.ts';
import path from 'node:path';
import type { Labels, Matcher } from './api.ts';
import type { ChunkMeta, Interval, SeriesSource } from './chunk-meta.ts';
import { addInterval } from './chunk-meta.ts';
import { CorruptionError, FormatVersionError, InternalError } from '../errors.ts';
import { readMeta, readMetaFile, writeMeta, type BlockMeta } from './block-meta.ts';
import { BlockIndexReader, type SeriesEntry } from './index-reader.ts';
import { BlockPostings } from './block-postings.ts';
import { isLegacyBlock, upgradeLegacyBlock } from './legacy-block.ts';
import { PROM_CHUNKS_MAGIC, PROM_CHUNKS_VERSION, TSDB_CHUNK_ENC_XOR } from '../codec/format-ids.ts';
import { countIntervals, readTombstones, readTombstonesFile, writeTombstones, type Tombstones } from './tombstones.ts';
import { ULID_RE } from './ulid.ts';

const TWO32 = 4294967296;
/** The window this thread's chunk files share while a select reads them (`readingThroughSharedWindows`). */
const CHUNK_WINDOW = new SharedWindow();
/** Chunk files are named by their 1-based sequence; chunk refs carry the 0-based one. */
export const chunkSegmentName = (seq: number): string => String(seq + 1).padStart(6, '0');

/**
 * A block chunk whose bytes are read when asked for: listing series (`/api/v1/series`, label names with
 * `match[]`) needs only the chunk time ranges, never the data. The bytes are not kept: they are a view of a
 * read-ahead window, and a kept view keeps its whole window (up to 512 KB) alive for as long as the chunk
 * object — a select over 30 days of blocks held every window it read (about twice its own chunk bytes, the
 * other shard's series sit between its own) until it was packed (docs/benchmarks.md, issue 11). Callers read
 * `bytes` once per use.
 */
class LazyChunk implements ChunkMeta {
  // The index entry's chunk numbers and this chunk's place in them rather than copies: a timestamp field is a
  // heap number of its own, and a select makes one of these per chunk it reads.
  constructor(private readonly block: Block, private readonly locs: readonly number[], private readonly at: number) {}
  get mint(): number { return this.locs[this.at]; }
  get maxt(): number { return this.locs[this.at + 1]; }
  get bytes(): Uint8Array { return this.block.readChunk(this.locs[this.at + 2]); }
  /** `bytes` through `pass`'s reader of the chunk's file. */
  bytesIn(pass: ChunkReadPass): Uint8Array {
    const ref = this.locs[this.at + 2];
    return this.block.readChunkIn(pass.reader(this.block, Math.floor(ref / TWO32)), ref);
  }
  /** The checked CRC of the chunk this block read last (right after `bytesIn`, this one's). */
  lastReadCrc(): number { return this.block.lastReadCrc; }
}

/**
 * One front-to-back pass over chunks (compaction): reads blocks' chunks through readers of its own, each
 * refilling one window in place (`ReadAheadFile` `inPlace`). So a chunk's bytes are valid only until the pass
 * reads the same chunk file again: the caller copies each chunk before it reads the next.
 */
export class ChunkReadPass {
  private readonly readers = new Map<Block, Map<number, ReadAheadFile>>();
  /**
   * The CRC-32C stored with (and checked against) the chunk `bytes` returned last, or -1 for a chunk not read
   * from a block: a chunk copied as it is takes the same CRC into its new file, computed once instead of twice.
   */
  crc = -1;

  /** The bytes of `c` (read through this pass when it is a block's chunk). */
  bytes(c: { readonly bytes: Uint8Array }): Uint8Array {
    if (!(c instanceof LazyChunk)) { this.crc = -1; return c.bytes; }
    const b = c.bytesIn(this);
    this.crc = c.lastReadCrc();
    return b;
  }

  /** This pass's reader of chunk file `seq` of `block`. */
  reader(block: Block, seq: number): ReadAheadFile {
    let files = this.readers.get(block);
    if (files === undefined) this.readers.set(block, files = new Map());
    let r = files.get(seq);
    if (r === undefined) files.set(seq, r = block.chunkFileReader(seq, true));
    return r;
  }

  /** Ends the pass: the bytes it read are invalid from now on. */
  close(): void {
    for (const files of this.readers.values()) for (const r of files.values()) r.closeInPlace();
    this.readers.clear();
  }
}

export class Block implements SeriesSource {
  private fds: Map<number, number>;
  private readers = new Map<number, ReadAheadFile>();
  private closed = false;
  readonly index: BlockPostings;
  /** The CRC-32C of the chunk `readChunkIn` returned last, checked against the stored one (`ChunkReadPass.crc`). */
  lastReadCrc = 0;

  constructor(
    readonly dir: string,
    public meta: BlockMeta,
    private readonly reader: BlockIndexReader,
    public tombstones: Tombstones,
    readonly sizeBytes: number,
    fds: Map<number, number>,
  ) {
    this.index = new BlockPostings(reader);
    this.fds = fds;
  }

  get minTime(): number { return this.meta.minTime; }
  get maxTime(): number { return this.meta.maxTime; }
  get refsInLabelOrder(): boolean { return this.reader.utf16Ordered; }
  get ulid(): string { return this.meta.ulid; }

  /**
   * Set while a compaction reads this block front to back. Its entries are then decoded without the thread's
   * cache, each once for its labels and chunks (`entryOf`): a cached entry outlived the young generation only
   * to die in the old one, and those promotions were much of a compaction's collection work (docs/benchmarks.md,
   * issue 11).
   */
  readOnce = false;
  private onceRef = -1;
  private onceEntry: SeriesEntry | null = null;

  /** Ends a `readOnce` pass, letting go of its last entry. */
  endReadOnce(): void {
    this.readOnce = false;
    this.onceRef = -1;
    this.onceEntry = null;
  }

  private entryOf(ref: number): SeriesEntry {
    if (!this.readOnce) return this.reader.series(ref);
    if (ref !== this.onceRef || this.onceEntry === null) {
      this.onceEntry = this.reader.series(ref, false);
      this.onceRef = ref;
    }
    return this.onceEntry;
  }

  labelsOf(ref: number): Labels { return this.entryOf(ref).labels; }

  /** Entries of this block in the thread's series cache now (for tests). */
  cachedEntries(): number { return this.reader.cachedSeries(); }

  /** `labelsHash(labelsOf(ref))`, without decoding the series entry. */
  labelsHashOf(ref: number): number { return this.reader.labelsHashOf(ref); }

  chunksOf(ref: number, mint: number, maxt: number, out: ChunkMeta[]): void {
    const cs = this.entryOf(ref).chunks;
    for (let i = 0; i < cs.length; i += 3) {
      if (cs[i + 1] < mint || cs[i] > maxt) continue;
      out.push(new LazyChunk(this, cs, i));
    }
  }

  deletedOf(ref: number): readonly Interval[] | undefined { return this.tombstones.get(ref); }

  /** The XOR payload of the chunk at `ref` (sequence · 2^32 + offset of its length varint). */
  readChunk(ref: number): Uint8Array {
    return this.readChunkIn(this.reader_(Math.floor(ref / TWO32)), ref);
  }

  /** `readChunk` through `rd`, a reader of the chunk file `ref` is in. */
  readChunkIn(rd: ReadAheadFile, ref: number): Uint8Array {
    const seq = Math.floor(ref / TWO32), off = ref % TWO32;
    // Positions in the read-ahead window rather than views of it: the chunk's view is the one object made.
    let at = rd.at(off, 11);
    // The length's uvarint, decoded here: `uvarintAt`'s result object per chunk was ~150 MB of the heap a
    // compaction of 30 days of 2 h blocks allocated (docs/benchmarks.md, issue 11).
    const head = rd.windowBytes, lim = Math.min(at + 10, rd.windowLength);
    let len = 0, mul = 1, q = at;
    for (;;) {
      if (q >= lim) throw new CorruptionError(this.chunkFile(seq), off, 'bad chunk length');
      const x = head[q++];
      len += (x & 0x7f) * mul;
      if ((x & 0x80) === 0) break;
      mul *= 128;
    }
    const p = q - at;
    // Encoding byte, data and the CRC-32C that follows (over the encoding byte and the data, as Prometheus
    // writes it). The view stays valid: a refill takes a new window, except inside `readingThroughSharedWindows`,
    // whose caller is done with each chunk before it reads the next.
    at = rd.at(off + p, len + 5);
    const w = rd.windowBytes;
    const enc = at < rd.windowLength ? w[at] : -1;
    if (enc !== TSDB_CHUNK_ENC_XOR) {
      throw InternalError.of('INTERNAL', [`chunk encoding ${enc} in ${this.chunkFile(seq)} at offset ${off} is not supported (only float samples, XOR)`]);
    }
    if (rd.windowLength - at < len + 5) throw new CorruptionError(this.chunkFile(seq), off, 'short chunk read');
    const data = new Uint8Array(w.buffer, w.byteOffset + at + 1, len);
    const want = w.readUInt32BE(at + 1 + len);
    const crc = crc32c(data, crc32cShort(w, at, at + 1));
    if (want !== crc) throw new CorruptionError(this.chunkFile(seq), off, `chunk checksum mismatch (stored ${want}, computed ${crc})`);
    this.lastReadCrc = crc;
    return data;
  }

  private chunkFile(seq: number): string { return path.join(this.dir, 'chunks', chunkSegmentName(seq)); }

  private reader_(seq: number): ReadAheadFile {
    let r = this.readers.get(seq);
    if (r === undefined) {
      r = this.chunkFileReader(seq, false);
      this.readers.set(seq, r);
    }
    return r;
  }

  /** A new reader of chunk file `seq` (`inPlace`: see `ReadAheadFile`; such a reader takes no shared window). */
  chunkFileReader(seq: number, inPlace: boolean): ReadAheadFile {
    const fd = this.fd(seq);
    return new ReadAheadFile(fd, fstatSync(fd).size, inPlace ? null : CHUNK_WINDOW, inPlace);
  }

  private fd(seq: number): number {
    let fd = this.fds.get(seq);
    if (fd === undefined) {
      if (this.closed) throw new Error(`block ${this.meta.ulid} is closed`);
      fd = openSync(path.join(this.dir, 'chunks', chunkSegmentName(seq)), 'r');
      this.fds.set(seq, fd);
    }
    return fd;
  }

  /**
   * Records deletions of `[mint, maxt]` for matching series and rewrites the tombstones file; with `persist`
   * false only in memory (a shared block is written by one worker, the others apply the same deletion).
   */
  async addTombstones(ms: readonly Matcher[], mint: number, maxt: number, persist = true): Promise<void> {
    const refs = this.index.select(ms).toUint32Array();
    if (refs.length === 0) return;
    const next: Tombstones = new Map(this.tombstones);
    for (let i = 0; i < refs.length; i++) next.set(refs[i], addInterval(next.get(refs[i]) ?? [], [mint, maxt]));
    if (persist) await writeTombstones(this.dir, next);
    this.tombstones = next;
    this.meta = { ...this.meta, stats: { ...this.meta.stats, numTombstones: countIntervals(next) } };
    if (persist) await writeMeta(this.dir, this.meta);
  }

  /** Re-reads tombstones and meta.json, which another worker may have rewritten since this block opened. */
  async refreshTombstones(): Promise<void> {
    this.tombstones = await readTombstones(this.dir);
    this.meta = await readMeta(this.dir);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
    for (const r of this.readers.values()) r.release();
    this.readers.clear();
    this.reader.close();
  }
}

/**
 * Opens every chunk file of the block and checks its header; the descriptors are kept for the block's life.
 * Holding them from the start is what lets another worker delete a shared block (compaction, retention, a
 * merge of shard parts) while this one still serves it until its next reload: the files stay readable through
 * open descriptors, as Prometheus's memory maps do. Also returns the files' total size.
 */
function openChunkFiles(dir: string): { fds: Map<number, number>; bytes: number } {
  const cdir = path.join(dir, 'chunks');
  const fds = new Map<number, number>();
  let bytes = 0;
  try {
    for (const name of readdirSync(cdir)) {
      if (!/^\d{6}$/.test(name)) continue;
      const file = path.join(cdir, name);
      const fd = openSync(file, 'r');
      fds.set(Number(name) - 1, fd);
      bytes += fstatSync(fd).size;
      const b = Buffer.alloc(8);
      readSync(fd, b, 0, 8, 0);
      if (b.readUInt32BE(0) !== PROM_CHUNKS_MAGIC) throw new CorruptionError(file, 0, `invalid magic number ${b.readUInt32BE(0).toString(16)}`);
      if (b[4] !== PROM_CHUNKS_VERSION) throw new FormatVersionError(file, b[4], PROM_CHUNKS_VERSION, PROM_CHUNKS_VERSION);
    }
  } catch (e) {
    for (const fd of fds.values()) closeSync(fd);
    throw e;
  }
  return { fds, bytes };
}

/** Bytes of the files under `dir` (read synchronously: see `isLegacyBlock`). */
export async function dirSize(dir: string): Promise<number> {
  return dirSizeSync(dir);
}

function dirSizeSync(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirSizeSync(p) : statSync(p).size;
  }
  return n;
}

/**
 * Opens the block in `dir`; a layout-1 block is converted first (the returned block's directory is new). Its
 * size is the sum of the files it reads, as Prometheus counts a block's size (index, chunks, tombstones, meta):
 * no listing of the directory, which was a fifth of opening a block (docs/benchmarks.md, issue 11).
 */
export async function openBlock(dir: string): Promise<Block> {
  let reader: BlockIndexReader;
  try {
    reader = new BlockIndexReader(path.join(dir, 'index'));
  } catch (e) {
    // A layout-1 index fails the magic check; it is looked for only then, not with an extra read of every block.
    if (e instanceof CorruptionError && await isLegacyBlock(dir)) return openBlock(await upgradeLegacyBlock(dir));
    throw e;
  }
  try {
    const { meta, bytes: metaBytes } = readMetaFile(dir);
    const { tombstones, bytes: tombstoneBytes } = readTombstonesFile(dir);
    const { fds, bytes: chunkBytes } = openChunkFiles(dir);
    return new Block(dir, meta, reader, tombstones, reader.sizeBytes + chunkBytes + tombstoneBytes + metaBytes, fds);
  } catch (e) {
    reader.close();
    throw e;
  }
}

/**
 * Block directories (ULID-named) directly under each of `parents`. A ULID directory without meta.json is
 * damage — blocks are written under `.tmp` names and deleted after a rename — so it is a CorruptionError, as
 * Prometheus refuses such a block, rather than data silently left out. A directory in `open` (a block this thread
 * has open, so its meta.json was there) is listed without that check: a reload after each of a compaction's
 * merges lists every block again, and the check was 0.4 s of a start-up compaction over 30 days of 2 h blocks
 * (docs/benchmarks.md, issue 11). Deleting a block renames it first, so a listed name is never a deleted block's.
 */
export async function listBlockDirs(parents: readonly string[], open?: { has(dir: string): boolean }): Promise<string[]> {
  const out: string[] = [];
  for (const parent of parents) {
    let names: string[];
    try { names = readdirSync(parent); } catch { continue; }
    for (const n of names) {
      if (!ULID_RE.test(n)) continue;
      const dir = path.join(parent, n);
      const d = open?.has(dir) ? dir : blockDirAt(dir);
      if (d !== null) out.push(d);
    }
  }
  return out;
}

/** `dir` when it holds a meta.json, null when it is gone, a CorruptionError when it lacks one. */
function blockDirAt(dir: string): string | null {
  const meta = path.join(dir, 'meta.json');
  if (existsSync(meta)) return dir;
  // Deleted by another worker (renamed to .deleted) since the listing: gone, not damaged.
  if (!existsSync(dir)) return null;
  throw new CorruptionError(meta, 0, 'block directory has no meta.json: restore the block from a backup or move its directory away');
}
