/**
 * Writes a block directory in Prometheus's layout: chunks/000001… (Prometheus chunk files), index (format
 * v2), meta.json and an empty tombstones file, into `<parent>/<ULID>.tmp`, fsynced, then renamed to `<parent>/<ULID>` so a reader never sees a
 * partial block. Used by head cutting, compaction and the OpenMetrics import (`writeBlock`).
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { crc32c, crc32cShort } from '../codec/crc32c.ts';
import type { FetchedSeries, Labels } from './api.ts';
import { ByteWriter } from '../codec/byte-buf.ts';
import { ChunkLocColumns, encodeIndexColumns } from './index-writer.ts';
import { writeMeta, type BlockMeta } from './block-meta.ts';
import { chunkSegmentName, type ChunkReadPass } from './block.ts';
import { syncDir, writeFileAtomic } from '../store/durable-files.ts';
import { PROM_CHUNKS_MAGIC, PROM_CHUNKS_VERSION, TSDB_CHUNK_SEGMENT_MAX_BYTES, TSDB_CHUNK_ENC_XOR, TSDB_META_VERSION } from '../codec/format-ids.ts';
import { compareLabels, labelsKey, normalizeLabels } from './labels.ts';
import { encodeTombstonesFile } from './tombstones.ts';
import { ulid as newUlid } from './ulid.ts';
import { XOR_MAX_SAMPLES, XorAppender, xorCount } from './xor-chunk.ts';

export const CHUNK_SEGMENT_MAX_BYTES = TSDB_CHUNK_SEGMENT_MAX_BYTES;
/** Chunk bytes buffered before a write (a chunk larger than this goes in a write of its own). */
const FLUSH_BYTES = 1024 * 1024;
const TWO32 = 4294967296;

/**
 * Write buffers of this thread's finished chunk writers, reused by the next: compaction writes one block after
 * another (177 over 30 days of 2 h blocks), and a buffer per block, grown by doubling to its flush size, was most
 * of the compacting thread's ArrayBuffer garbage (~0.9 GB over those 177, docs/benchmarks.md, issue 11).
 */
const spareBuffers: ByteWriter[] = [];
const SPARE_BUFFERS = 2;
/** Bytes a chunk of `n` data bytes takes at most in a segment: length uvarint, encoding byte, data, CRC. */
const entryBytes = (n: number): number => 10 + 1 + n + 4;
/** CRC-32C of a chunk's encoding byte, which a chunk's CRC starts with. */
const XOR_ENCODING_CRC = crc32cShort(Uint8Array.of(TSDB_CHUNK_ENC_XOR), 0, 1);
export interface BlockChunk { mint: number; maxt: number; bytes: Uint8Array }
export interface BlockSeries { labels: Labels; chunks: BlockChunk[] }

export interface NewBlockInfo {
  minTime: number;
  maxTime: number;
  level: number;
  sources?: string[];
  parents?: { ulid: string; minTime: number; maxTime: number }[];
  cutFromHead?: boolean;
  /** Shard number → max time (exclusive, ms) of the head data of that shard the block holds (shard-layout.ts). */
  headCuts?: Record<string, number>;
}

/** Streams chunks into numbered segment files. */
class ChunkFileWriter {
  /** Sequence of the file being written (0 for 000001, as in chunk refs); -1 before the first. */
  private seq = -1;
  private fh: fsp.FileHandle | null = null;
  private offset = 0;
  private buf = spareBuffers.pop() ?? new ByteWriter(FLUSH_BYTES);
  private released = false;
  constructor(private readonly dir: string) {}

  /**
   * Appends a chunk when that needs no I/O first and returns its ref; otherwise -1 (then `addAfterIo`). Synchronous,
   * as a compaction copies hundreds of thousands of chunks: an async call each was about a quarter of
   * its heap allocation (docs/benchmarks.md, issue 11). `crc`: the chunk's CRC-32C when the caller has it
   * (a chunk copied from a block, whose CRC was checked as it was read), else -1.
   */
  addNow(bytes: Uint8Array, crc = -1): number {
    if (this.needsSegment(bytes.length)) return -1;
    // A chunk larger than the buffer goes in after a flush, alone.
    if (this.buf.len + entryBytes(bytes.length) > FLUSH_BYTES && this.buf.len > 0) return -1;
    // As Prometheus: the upper half is the file's sequence in the directory (0 for 000001).
    const ref = this.seq * TWO32 + this.offset + this.buf.len;
    const b = this.buf;
    b.uvarint(bytes.length);
    b.u8(TSDB_CHUNK_ENC_XOR);
    b.bytes(bytes);
    // Over the encoding byte and the data, continued from the encoding byte's CRC (no view of the buffer made).
    b.u32be(crc >= 0 ? crc : crc32c(bytes, XOR_ENCODING_CRC));
    return ref;
  }

  /** Appends a chunk `addNow` refused, after the new segment or the flush it waits for; returns its ref. */
  async addAfterIo(bytes: Uint8Array, crc = -1): Promise<number> {
    for (;;) {
      // A new segment, or a flush (twice for a chunk larger than the buffer: the segment's header first).
      if (this.needsSegment(bytes.length)) await this.nextSegment();
      else await this.flush();
      const ref = this.addNow(bytes, crc);
      if (ref >= 0) return ref;
    }
  }

  /** Whether a chunk of `n` bytes needs a new segment file first (none open yet, or this one would overflow). */
  private needsSegment(n: number): boolean {
    return this.fh === null || this.offset + this.buf.len + entryBytes(n) > CHUNK_SEGMENT_MAX_BYTES;
  }

  private async flush(): Promise<void> {
    if (this.fh === null || this.buf.len === 0) return;
    await this.fh.write(this.buf.buf, 0, this.buf.len);
    this.offset += this.buf.len;
    this.buf.len = 0;
  }

  private async nextSegment(): Promise<void> {
    await this.close();
    this.seq++;
    this.fh = await fsp.open(path.join(this.dir, chunkSegmentName(this.seq)), 'w');
    this.offset = 0;
    this.buf.u32be(PROM_CHUNKS_MAGIC); this.buf.u8(PROM_CHUNKS_VERSION); this.buf.u8(0); this.buf.u8(0); this.buf.u8(0);
  }

  async close(): Promise<void> {
    if (this.fh === null) return;
    await this.flush();
    await this.fh.sync();
    await this.fh.close();
    this.fh = null;
  }

  /** Gives the buffer to the thread's next writer (once: a failed `finish` is discarded after); this one is not used again. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.buf.len = 0;
    if (spareBuffers.length < SPARE_BUFFERS) spareBuffers.push(this.buf);
  }
}

/**
 * A new block written series by series, so a caller that produces series in label order (compaction) holds
 * only the current one: chunks go to the segment files as they are added; what the index needs of each series
 * (its labels and its chunks' places) is kept until `finish` writes the index and meta.json.
 */
export class BlockDirWriter {
  private readonly labels: Labels[] = [];
  /** Series `i`'s chunks are `[starts[i], starts[i + 1])` of `chunks`. */
  private readonly starts: number[] = [0];
  private readonly chunks: ChunkLocColumns;
  private numSamples = 0;

  private constructor(readonly ulid: string, private readonly parent: string, private readonly tmp: string, private readonly cw: ChunkFileWriter,
    chunkCapacity: number) {
    this.chunks = new ChunkLocColumns(chunkCapacity);
  }

  /**
   * `chunkCapacity`: the chunks expected (a compaction's inputs' count), so that the columns of the chunks'
   * places are not grown by doubling (three arrays of 8 bytes per chunk: 389,000 chunks in the last
   * compaction over 30 days of 2 h blocks).
   */
  static async open(parent: string, nowMs = Date.now(), chunkCapacity = 1024): Promise<BlockDirWriter> {
    const id = newUlid(nowMs);
    const tmp = path.join(parent, `${id}.tmp`);
    await fsp.mkdir(path.join(tmp, 'chunks'), { recursive: true });
    return new BlockDirWriter(id, parent, tmp, new ChunkFileWriter(path.join(tmp, 'chunks')), Math.max(16, chunkCapacity));
  }

  /** Series added so far. */
  get numSeries(): number { return this.labels.length; }

  /**
   * Adds the next series (in label order, after the previous one); chunks in time order, their bytes read
   * through `pass` when given (each chunk is copied before the next is read).
   */
  async add(labels: Labels, chunks: readonly BlockChunk[], pass: ChunkReadPass | null = null): Promise<void> {
    if (chunks.length === 0) return;
    for (const c of chunks) {
      const b = pass === null ? c.bytes : pass.bytes(c);
      const crc = pass === null ? -1 : pass.crc;
      this.numSamples += xorCount(b);
      let ref = this.cw.addNow(b, crc);
      if (ref < 0) ref = await this.cw.addAfterIo(b, crc);
      this.chunks.push(c.mint, c.maxt, ref);
    }
    this.labels.push(labels);
    this.starts.push(this.chunks.n);
  }

  /** Writes the index, tombstones and meta.json, fsyncs, and renames the directory into place; returns the ULID. */
  async finish(info: NewBlockInfo): Promise<string> {
    const { tmp, ulid: id } = this;
    await this.cw.close();
    this.cw.release();
    await writeFileAtomic(path.join(tmp, 'index'), encodeIndexColumns(this.labels, this.chunks, this.starts));
    await writeFileAtomic(path.join(tmp, 'tombstones'), encodeTombstonesFile(new Map()));
    const meta: BlockMeta = {
      ulid: id, minTime: info.minTime, maxTime: info.maxTime,
      stats: { numSamples: this.numSamples, numSeries: this.labels.length, numChunks: this.chunks.n },
      compaction: { level: info.level, sources: info.sources ?? [id], ...(info.parents ? { parents: info.parents } : {}) },
      version: TSDB_META_VERSION,
      ...(info.cutFromHead ? { tessera: { cutFromHead: true, ...(info.headCuts ? { headCuts: info.headCuts } : {}) } } : {}),
    };
    await writeMeta(tmp, meta);
    await syncDir(path.join(tmp, 'chunks'));
    await syncDir(tmp);
    await fsp.rename(tmp, path.join(this.parent, id));
    await syncDir(this.parent);
    return id;
  }

  /** Drops the unfinished block (its `.tmp` directory). */
  async discard(): Promise<void> {
    await this.cw.close().catch(() => {});
    this.cw.release();
    await fsp.rm(this.tmp, { recursive: true, force: true });
  }
}

/** Writes `series` (sorted by labels, chunks in time order) as a new block under `parent`; returns its ULID. */
export async function writeBlockDir(parent: string, series: readonly BlockSeries[], info: NewBlockInfo, nowMs = Date.now()): Promise<string> {
  const w = await BlockDirWriter.open(parent, nowMs);
  for (const s of series) await w.add(s.labels, s.chunks);
  return w.finish(info);
}

/** Encodes sorted samples into chunks of up to 120. */
export function encodeChunks(ts: ArrayLike<number>, vs: Float64Array, from: number, to: number): BlockChunk[] {
  const out: BlockChunk[] = [];
  for (let i = from; i < to; i += XOR_MAX_SAMPLES) {
    const a = new XorAppender();
    const end = Math.min(to, i + XOR_MAX_SAMPLES);
    for (let k = i; k < end; k++) a.append(ts[k], vs[k]);
    out.push({ mint: ts[i], maxt: ts[end - 1], bytes: a.bytes().slice() });
  }
  return out;
}

/**
 * The import entry point: writes one block holding the samples of `series` with `mintMs ≤ t < maxtMs`
 * (timestamps ascending per series) under `dir`; meta.json gets minTime = mintMs, maxTime = maxtMs.
 * Series with the same label set are merged (first sample wins on equal timestamps).
 */
export async function writeBlock(dir: string, series: FetchedSeries[], mintMs: number, maxtMs: number): Promise<string> {
  await fsp.mkdir(dir, { recursive: true });
  const byKey = new Map<string, { labels: Labels; parts: FetchedSeries[] }>();
  for (const s of series) {
    const labels = normalizeLabels(s.labels);
    const key = labelsKey(labels);
    const e = byKey.get(key);
    if (e) e.parts.push(s); else byKey.set(key, { labels, parts: [s] });
  }
  const out: BlockSeries[] = [];
  for (const { labels, parts } of byKey.values()) {
    const { ts, vs } = mergeParts(parts, mintMs, maxtMs);
    if (ts.length) out.push({ labels, chunks: encodeChunks(ts, vs, 0, ts.length) });
  }
  out.sort((a, b) => compareLabels(a.labels, b.labels));
  return writeBlockDir(dir, out, { minTime: mintMs, maxTime: maxtMs, level: 1 });
}

function mergeParts(parts: FetchedSeries[], mint: number, maxt: number): { ts: Float64Array; vs: Float64Array } {
  let n = 0;
  for (const p of parts) n += p.t.length;
  const idx: [number, number][] = [];
  parts.forEach((p, pi) => { for (let i = 0; i < p.t.length; i++) if (p.t[i] >= mint && p.t[i] < maxt) idx.push([pi, i]); });
  if (parts.length > 1) idx.sort((a, b) => parts[a[0]].t[a[1]] - parts[b[0]].t[b[1]] || a[0] - b[0]);
  const ts = new Float64Array(Math.min(n, idx.length)), vs = new Float64Array(ts.length);
  let k = 0;
  for (const [pi, i] of idx) {
    const t = parts[pi].t[i];
    if (k > 0 && ts[k - 1] === t) continue;
    ts[k] = t;
    vs[k] = parts[pi].v[i];
    k++;
  }
  return { ts: ts.subarray(0, k), vs: vs.subarray(0, k) };
}
