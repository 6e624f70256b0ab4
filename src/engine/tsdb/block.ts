/**
 * An immutable block directory `<ULID>/` (meta.json, index, chunks/NNNNNN, tombstones) opened for queries.
 * The index is loaded into memory; chunk bytes are read on demand with positioned reads (the worker thread
 * may block on disk; the main thread never calls this).
 */
import { closeSync, openSync, readSync, promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Labels, Matcher } from './api.ts';
import type { ChunkMeta, Interval, SeriesSource } from './chunk-meta.ts';
import { addInterval } from './chunk-meta.ts';
import { CorruptionError, FormatVersionError } from '../errors.ts';
import { decodeIndex, type IndexSeries } from './block-index.ts';
import { readMeta, writeMeta, type BlockMeta } from './block-meta.ts';
import { TSDB_CHUNKS_MAGIC, TSDB_CHUNKS_VERSION } from '../codec/format-ids.ts';
import type { LabelIndex } from './postings.ts';
import { countIntervals, readTombstones, writeTombstones, type Tombstones } from './tombstones.ts';
import { ULID_RE } from './ulid.ts';

const TWO32 = 4294967296;
export const chunkSegmentName = (seg: number): string => String(seg).padStart(6, '0');

/**
 * A block chunk whose bytes are read on first use: listing series (`/api/v1/series`, label names with
 * `match[]`) needs only the chunk time ranges, never the data.
 */
class LazyChunk implements ChunkMeta {
  private data: Uint8Array | null = null;
  constructor(private readonly block: Block, readonly mint: number, readonly maxt: number, private readonly ref: number, private readonly len: number) {}
  get bytes(): Uint8Array {
    return this.data ??= this.block.readChunk(this.ref, this.len);
  }
}

export class Block implements SeriesSource {
  private fds = new Map<number, number>();
  private closed = false;

  constructor(
    readonly dir: string,
    public meta: BlockMeta,
    readonly series: IndexSeries[],
    readonly index: LabelIndex,
    public tombstones: Tombstones,
    readonly sizeBytes: number,
  ) {}

  get minTime(): number { return this.meta.minTime; }
  get maxTime(): number { return this.meta.maxTime; }
  get ulid(): string { return this.meta.ulid; }

  labelsOf(ref: number): Labels { return this.series[ref]?.labels ?? []; }

  chunksOf(ref: number, mint: number, maxt: number, out: ChunkMeta[]): void {
    const s = this.series[ref];
    if (s === undefined) return;
    for (const c of s.chunks) {
      if (c.maxt < mint || c.mint > maxt) continue;
      out.push(new LazyChunk(this, c.mint, c.maxt, c.ref, c.len));
    }
  }

  deletedOf(ref: number): readonly Interval[] | undefined { return this.tombstones.get(ref); }

  /** The XOR payload of the chunk at `ref` (`len` = payload bytes, after the length varint and encoding byte). */
  readChunk(ref: number, len: number): Uint8Array {
    const seg = Math.floor(ref / TWO32), off = ref % TWO32;
    const fd = this.fd(seg);
    const head = Buffer.alloc(11);
    readSync(fd, head, 0, 11, off);
    let p = 0;
    while (head[p] & 0x80) p++;
    const out = Buffer.alloc(len);
    if (readSync(fd, out, 0, len, off + p + 2) !== len) {
      throw new CorruptionError(path.join(this.dir, 'chunks', chunkSegmentName(seg)), off, 'short chunk read');
    }
    return new Uint8Array(out.buffer, out.byteOffset, len);
  }

  private fd(seg: number): number {
    let fd = this.fds.get(seg);
    if (fd === undefined) {
      if (this.closed) throw new Error(`block ${this.meta.ulid} is closed`);
      fd = openSync(path.join(this.dir, 'chunks', chunkSegmentName(seg)), 'r');
      this.fds.set(seg, fd);
    }
    return fd;
  }

  /** Records deletions of `[mint, maxt]` for matching series and rewrites the tombstones file. */
  async addTombstones(ms: readonly Matcher[], mint: number, maxt: number): Promise<void> {
    const refs = this.index.select(ms).toUint32Array();
    if (refs.length === 0) return;
    const next: Tombstones = new Map(this.tombstones);
    for (let i = 0; i < refs.length; i++) next.set(refs[i], addInterval(next.get(refs[i]) ?? [], [mint, maxt]));
    await writeTombstones(this.dir, next);
    this.tombstones = next;
    this.meta = { ...this.meta, stats: { ...this.meta.stats, numTombstones: countIntervals(next) } };
    await writeMeta(this.dir, this.meta);
  }

  close(): void {
    this.closed = true;
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}

async function checkChunkHeaders(dir: string): Promise<void> {
  const cdir = path.join(dir, 'chunks');
  for (const name of await fsp.readdir(cdir)) {
    if (!/^\d{6}$/.test(name)) continue;
    const fh = await fsp.open(path.join(cdir, name), 'r');
    try {
      const b = Buffer.alloc(8);
      await fh.read(b, 0, 8, 0);
      if (b.readUInt32BE(0) !== TSDB_CHUNKS_MAGIC) throw new CorruptionError(path.join(cdir, name), 0, 'bad chunk file magic');
      if (b[4] !== TSDB_CHUNKS_VERSION) throw new FormatVersionError(path.join(cdir, name), b[4], 1, TSDB_CHUNKS_VERSION);
    } finally { await fh.close(); }
  }
}

export async function dirSize(dir: string): Promise<number> {
  let n = 0;
  for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? await dirSize(p) : (await fsp.stat(p)).size;
  }
  return n;
}

export async function openBlock(dir: string): Promise<Block> {
  const meta = await readMeta(dir);
  const indexFile = path.join(dir, 'index');
  const idx = decodeIndex(new Uint8Array(await fsp.readFile(indexFile)), indexFile);
  await checkChunkHeaders(dir);
  return new Block(dir, meta, idx.series, idx.postings, await readTombstones(dir), await dirSize(dir));
}

/** Block directories (ULID-named, with a meta.json, not marked deletable) directly under each of `parents`. */
export async function listBlockDirs(parents: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const parent of parents) {
    const names = await fsp.readdir(parent).catch(() => [] as string[]);
    for (const n of names) {
      if (!ULID_RE.test(n)) continue;
      const dir = path.join(parent, n);
      try { await fsp.access(path.join(dir, 'meta.json')); } catch { continue; }
      out.push(dir);
    }
  }
  return out;
}
