/**
 * Head recovery and WAL checkpoints. A checkpoint (`checkpoint.NNNNNNNN`, N = the first WAL segment still
 * needed) holds the series and tombstones still in the head and its samples at or after the truncation
 * time, in WAL record encoding; after writing it, WAL segments before N are deleted. Recovery loads the newest
 * checkpoint, then replays the WAL from segment N. Samples that are already in the head (the checkpoint and
 * the first segment overlap by design) are recognised as duplicates and skipped.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { CorruptionError } from '../errors.ts';
import { ByteReader } from '../codec/byte-buf.ts';
import { beginFile, checkFile, endFile, writeFileAtomic, syncDir } from './file-frame.ts';
import { TSDB_CHECKPOINT_MAGIC, TSDB_CHECKPOINT_VERSION } from '../codec/format-ids.ts';
import { APPEND_OK, Head, MemSeries } from './head.ts';
import type { TsdbWal } from './wal-port.ts';
import { decodeSamples, decodeSeries, decodeTombstones, encodeSamples, encodeSeries, encodeTombstones, REC_SAMPLES, REC_SERIES, REC_TOMBSTONES } from './wal-records.ts';
import type { SeriesRec, TombstoneRec } from './wal-records.ts';
import { decodeXor, xorCount } from './xor-chunk.ts';

const CHECKPOINT_RE = /^checkpoint\.(\d{8})$/;

export async function listCheckpoints(dir: string): Promise<number[]> {
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  const out: number[] = [];
  for (const n of names) { const m = CHECKPOINT_RE.exec(n); if (m) out.push(Number(m[1])); }
  return out.sort((a, b) => a - b);
}

const checkpointName = (seg: number): string => `checkpoint.${String(seg).padStart(8, '0')}`;

/** Applies WAL-encoded records to the head; `refMap` maps logged refs to live series. */
class Replayer {
  readonly refMap = new Map<number, MemSeries>();
  constructor(private readonly head: Head) {}

  apply(type: number, payload: Uint8Array, file: string): void {
    if (type === REC_SERIES) {
      for (const s of decodeSeries(payload, file)) this.refMap.set(s.ref, this.head.create(s.ref, s.labels));
    } else if (type === REC_SAMPLES) {
      const r = decodeSamples(payload, file);
      const head = this.head;
      for (let i = 0; i < r.n; i++) {
        const s = this.refMap.get(r.refs[i]);
        if (s === undefined) continue; // series record lost with a truncated segment: nothing to attach to
        if (head.appendable(s, r.ts[i], r.vs[i], head.minValidTime) === APPEND_OK) head.appendUnchecked(s, r.ts[i], r.vs[i]);
      }
    } else if (type === REC_TOMBSTONES) {
      for (const t of decodeTombstones(payload, file)) {
        const s = this.refMap.get(t.ref);
        if (s) this.head.addTombstone(s.ref, [t.mint, t.maxt]);
      }
    }
  }
}

export async function replayInto(head: Head, wal: TsdbWal, dir: string): Promise<{ min: number; max: number; current: number }> {
  const rp = new Replayer(head);
  const cps = await listCheckpoints(dir);
  let from = null as { segment: number; offset: number } | null;
  if (cps.length) {
    const seg = cps[cps.length - 1];
    const file = path.join(dir, checkpointName(seg));
    const b = new Uint8Array(await fsp.readFile(file));
    const { start, end } = checkFile(b, file, TSDB_CHECKPOINT_MAGIC, 1, TSDB_CHECKPOINT_VERSION);
    const r = new ByteReader(b, file, start, end);
    while (r.remaining > 0) {
      const type = r.u8();
      const len = r.uvarint();
      rp.apply(type, r.bytes(len), file);
    }
    from = { segment: seg, offset: 0 };
  }
  let minSeg = Infinity, maxSeg = -1;
  await wal.replay(from, (type, payload, pos) => {
    if (pos.segment < minSeg) minSeg = pos.segment;
    if (pos.segment > maxSeg) maxSeg = pos.segment;
    try { rp.apply(type, payload, `wal segment ${pos.segment}`); } catch (err) {
      if (err instanceof CorruptionError) throw err;
      throw new CorruptionError(`wal segment ${pos.segment}`, pos.offset, (err as Error).message);
    }
  });
  if (maxSeg < 0) return { min: 0, max: 0, current: 0 };
  return { min: minSeg, max: maxSeg, current: maxSeg };
}

/** Encodes the head's state at or after `mint` as checkpoint records. */
function checkpointBody(head: Head): Uint8Array {
  const w = beginFile(TSDB_CHECKPOINT_MAGIC, TSDB_CHECKPOINT_VERSION, 1 << 16);
  const put = (type: number, payload: Uint8Array): void => { w.u8(type); w.uvarint(payload.length); w.bytes(payload); };
  const series: SeriesRec[] = [];
  for (const s of head.byKey.values()) series.push({ ref: s.ref, labels: s.labels });
  if (series.length) put(REC_SERIES, encodeSeries(series));
  for (const s of head.byKey.values()) {
    for (const { bytes } of head.chunksWithBytes(s)) {
      const n = xorCount(bytes);
      const ts = new Float64Array(n), vs = new Float64Array(n);
      decodeXor(bytes, ts, vs);
      const refs = new Float64Array(n).fill(s.ref);
      const idx = new Uint32Array(n).map((_, i) => i);
      put(REC_SAMPLES, encodeSamples(refs, ts, vs, idx, n));
    }
  }
  const tombs: TombstoneRec[] = [];
  for (const [ref, ivs] of head.tombstones) for (const iv of ivs) tombs.push({ ref, mint: iv[0], maxt: iv[1] });
  if (tombs.length) put(REC_TOMBSTONES, encodeTombstones(tombs));
  return endFile(w);
}

/**
 * Cuts the WAL, writes a checkpoint of the (already truncated) head, then deletes older segments and
 * checkpoints. Called after a block was cut and the head truncated.
 */
export async function checkpointWal(head: Head, wal: TsdbWal, dir: string): Promise<void> {
  const pos = await wal.cut();
  await writeFileAtomic(path.join(dir, checkpointName(pos.segment)), checkpointBody(head));
  await syncDir(dir);
  await wal.truncateBefore(pos);
  for (const seg of await listCheckpoints(dir)) {
    if (seg < pos.segment) await fsp.rm(path.join(dir, checkpointName(seg)), { force: true });
  }
}
