/**
 * Block layout 1 (Tessera's own block files, before blocks became Prometheus's): read only to convert such a
 * block on first open. The series, their chunks and their tombstones are read with the old decoders and
 * written again as a Prometheus block (tombstoned samples dropped, so the new block needs no tombstones);
 * then the old directory is removed. docs/format.md "TSDB block layout 1 (legacy)" describes the old files.
 */
import { closeSync, openSync, readSync, promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Label } from './api.ts';
import { ByteReader } from '../codec/byte-buf.ts';
import { CorruptionError } from '../errors.ts';
import { checkFile } from './file-frame.ts';
import { LEGACY_CHUNKS_MAGIC, LEGACY_INDEX_MAGIC, LEGACY_TOMBSTONES_MAGIC } from '../codec/format-ids.ts';
import { readMeta } from './block-meta.ts';
import { encodeChunks, writeBlockDir, type BlockChunk, type BlockSeries } from './block-writer.ts';
import { isDeleted, type Interval } from './chunk-meta.ts';
import { decodeXor, xorCount } from './xor-chunk.ts';

const TWO32 = 4294967296;

/** True when `dir`'s index file is a layout-1 index. */
export async function isLegacyBlock(dir: string): Promise<boolean> {
  // Synchronous reads (here and in the other per-block reads of opening a block): a shard worker opens every
  // block at start-up, and each promise-based call cost it more CPU than the read (docs/benchmarks.md, issue 11).
  const fd = openSync(path.join(dir, 'index'), 'r');
  try {
    const b = Buffer.alloc(4);
    readSync(fd, b, 0, 4, 0);
    return b.readUInt32BE(0) === LEGACY_INDEX_MAGIC;
  } finally { closeSync(fd); }
}

interface LegacySeries { labels: Label[]; chunks: { mint: number; maxt: number; ref: number; len: number }[] }

function decodeLegacyIndex(b: Uint8Array, file: string): LegacySeries[] {
  const { start, end } = checkFile(b, file, LEGACY_INDEX_MAGIC, 1, 1);
  const r = new ByteReader(b, file, start, end);
  const syms: string[] = new Array(r.uvarint());
  for (let i = 0; i < syms.length; i++) syms[i] = r.str();
  const series: LegacySeries[] = new Array(r.uvarint());
  for (let i = 0; i < series.length; i++) {
    const labels: Label[] = new Array(r.uvarint());
    for (let j = 0; j < labels.length; j++) labels[j] = { name: syms[r.uvarint()], value: syms[r.uvarint()] };
    const chunks: LegacySeries['chunks'] = new Array(r.uvarint());
    let prev = 0;
    for (let j = 0; j < chunks.length; j++) {
      const mint = prev + r.varint();
      const maxt = mint + r.uvarint();
      chunks[j] = { mint, maxt, ref: r.uvarint(), len: r.uvarint() };
      prev = maxt;
    }
    series[i] = { labels, chunks };
  }
  return series;
}

async function readLegacyTombstones(dir: string): Promise<Map<number, Interval[]>> {
  const file = path.join(dir, 'tombstones');
  let b: Uint8Array;
  try { b = new Uint8Array(await fsp.readFile(file)); } catch { return new Map(); }
  const { start, end } = checkFile(b, file, LEGACY_TOMBSTONES_MAGIC, 1, 1);
  const r = new ByteReader(b, file, start, end);
  const out = new Map<number, Interval[]>();
  for (let n = r.uvarint(); n > 0; n--) {
    const ref = r.uvarint();
    const ivs: Interval[] = [];
    for (let k = r.uvarint(); k > 0; k--) ivs.push([r.varint(), r.varint()]);
    out.set(ref, ivs);
  }
  return out;
}

/** Rewrites the layout-1 block in `dir` as a Prometheus block beside it; returns the new block's directory. */
export async function upgradeLegacyBlock(dir: string): Promise<string> {
  const meta = await readMeta(dir);
  const indexFile = path.join(dir, 'index');
  const series = decodeLegacyIndex(new Uint8Array(await fsp.readFile(indexFile)), indexFile);
  const tombstones = await readLegacyTombstones(dir);
  const fds = new Map<number, number>();
  const out: BlockSeries[] = [];
  try {
    const chunkBytes = (ref: number, len: number): Uint8Array => {
      const seg = Math.floor(ref / TWO32), off = ref % TWO32;
      let fd = fds.get(seg);
      if (fd === undefined) {
        const file = path.join(dir, 'chunks', String(seg).padStart(6, '0'));
        fd = openSync(file, 'r');
        const magic = Buffer.alloc(4);
        readSync(fd, magic, 0, 4, 0);
        if (magic.readUInt32BE(0) !== LEGACY_CHUNKS_MAGIC) throw new CorruptionError(file, 0, 'bad chunk file magic');
        fds.set(seg, fd);
      }
      const head = Buffer.alloc(11);
      readSync(fd, head, 0, 11, off);
      let p = 0;
      while (head[p] & 0x80) p++;
      const data = Buffer.alloc(len);
      if (readSync(fd, data, 0, len, off + p + 2) !== len) throw new CorruptionError(path.join(dir, 'chunks'), off, 'short chunk read');
      return new Uint8Array(data.buffer, data.byteOffset, len);
    };
    series.forEach((s, ref) => {
      const chunks: BlockChunk[] = s.chunks.map((c) => ({ mint: c.mint, maxt: c.maxt, bytes: chunkBytes(c.ref, c.len) }));
      const del = tombstones.get(ref);
      if (del === undefined) { if (chunks.length) out.push({ labels: s.labels, chunks }); return; }
      let cap = 0;
      for (const c of chunks) cap += xorCount(c.bytes);
      const t = new Float64Array(cap), v = new Float64Array(cap);
      let n = 0;
      for (const c of chunks) {
        const base = n, k = decodeXor(c.bytes, t.subarray(base), v.subarray(base));
        for (let i = base; i < base + k; i++) if (!isDeleted(del, t[i])) { t[n] = t[i]; v[n] = v[i]; n++; }
      }
      if (n) out.push({ labels: s.labels, chunks: encodeChunks(t, v, 0, n) });
    });
  } finally {
    for (const fd of fds.values()) closeSync(fd);
  }
  const parent = path.dirname(dir);
  const { level, sources, parents } = meta.compaction;
  const id = await writeBlockDir(parent, out, { minTime: meta.minTime, maxTime: meta.maxTime, level, sources, parents, cutFromHead: meta.tessera?.cutFromHead });
  // A crash between the write above and this removal leaves both blocks: their samples are identical, which
  // queries de-duplicate and the next compaction merges, and the old one is converted again at the next open.
  const trash = `${dir}.deleted`;
  await fsp.rename(dir, trash);
  await fsp.rm(trash, { recursive: true, force: true });
  return path.join(parent, id);
}
