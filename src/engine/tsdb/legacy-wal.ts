/**
 * Layout 1 of the TSDB WAL (Tessera's own, before the WAL became Prometheus's): read only, to upgrade a shard
 * on its first open (docs/format.md "TSDB WAL upgrade from layout 1"). Layout 1 is a `wal/` of segments in
 * the generic segment format of `src/engine/wal` ('TWAL' header) and `checkpoint.NNNNNNNN` files ('TCKP')
 * beside it in the shard directory, N being the first segment still needed.
 *
 * The upgrade, each step durable before the next:
 *   1. rename `wal/` to `wal-v1/` (so a Prometheus-format WAL can be opened at `wal/`);
 *   2. replay the newest layout-1 checkpoint and the layout-1 segments from N on into the head;
 *   3. open the new WAL at `wal/` and checkpoint it with the head (`wal/checkpoint.M/` appears atomically);
 *   4. delete `wal-v1/` and the layout-1 checkpoint files.
 * A crash before step 3 completes leaves the layout-1 data in place and the upgrade runs again; once a
 * checkpoint directory exists in `wal/`, the layout-1 files are leftovers and step 4 is simply redone.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Label } from './api.ts';
import { ByteReader } from '../codec/byte-buf.ts';
import { CorruptionError } from '../errors.ts';
import { LEGACY_CHECKPOINT_MAGIC, LEGACY_CHECKPOINT_VERSION, LEGACY_WAL_DIR, WAL_SEGMENT_MAGIC } from '../codec/format-ids.ts';
import { segmentName, Wal } from '../wal/index.ts';
import { checkFile } from './file-frame.ts';
import { syncDir } from '../store/durable-files.ts';
import type { Head } from './head.ts';
import { headCheckpointRecords, Replayer, type WalReplayStatus } from './head-replay.ts';
import { listWalDir } from './prom-wal.ts';
import { encodeSamplesRecord, encodeSeriesRecord, encodeTombstonesRecord, REC_SAMPLES, REC_SERIES, REC_TOMBSTONES } from './prom-wal-records.ts';
import type { OpenWal, TsdbWal } from './wal-port.ts';

const LEGACY_CHECKPOINT_RE = /^checkpoint\.(\d{8})$/;

/** Upgrades the shard's WAL if it is in layout 1: returns the new WAL (holding the head) and what was replayed. */
export async function upgradeLegacyWal(head: Head, shardDir: string, openWal: OpenWal): Promise<{ wal: TsdbWal; status: WalReplayStatus } | null> {
  const walDir = path.join(shardDir, 'wal'), oldDir = path.join(shardDir, LEGACY_WAL_DIR);
  const checkpoints = await legacyCheckpoints(shardDir);
  const inWal = await holdsLegacySegments(walDir);
  const moved = await exists(oldDir);
  if (checkpoints.length === 0 && !inWal && !moved) return null;
  if (!inWal && (await listWalDir(walDir)).checkpoints.length > 0) {
    await removeLeftovers(shardDir, oldDir, checkpoints); // step 3 completed earlier
    return null;
  }
  if (inWal) {
    if (moved) throw new CorruptionError(walDir, 0, `both ${walDir} and ${oldDir} hold a layout-1 WAL; move one of them away`);
    await fsp.rename(walDir, oldDir);
    await syncDir(shardDir);
  }
  const status = await replayLegacy(head, shardDir, oldDir, checkpoints);
  const wal = await openWal(walDir);
  await wal.checkpoint(headCheckpointRecords(head));
  await removeLeftovers(shardDir, oldDir, checkpoints);
  process.emitWarning(`TSDB WAL of ${shardDir} upgraded from Tessera's layout 1 to Prometheus's WAL format`, 'TesseraWalWarning');
  return { wal, status };
}

async function exists(p: string): Promise<boolean> {
  return fsp.access(p).then(() => true, () => false);
}

/** Layout-1 checkpoint files of a shard directory (regular files; a directory of that name is not one), ascending. */
async function legacyCheckpoints(shardDir: string): Promise<number[]> {
  const out: number[] = [];
  for (const e of await fsp.readdir(shardDir, { withFileTypes: true }).catch(() => [])) {
    const m = LEGACY_CHECKPOINT_RE.exec(e.name);
    if (m && e.isFile()) out.push(Number(m[1]));
  }
  return out.sort((a, b) => a - b);
}

/**
 * True when `walDir`'s segments are layout 1: the first one with 4 bytes starts with the layout-1 magic ('TWAL').
 * A directory never mixes layouts, so one segment decides (an open reads one header, not every segment).
 */
async function holdsLegacySegments(walDir: string): Promise<boolean> {
  for (const seg of (await listWalDir(walDir)).segments) {
    const fh = await fsp.open(path.join(walDir, segmentName(seg)), 'r');
    try {
      const b = Buffer.alloc(4);
      const { bytesRead } = await fh.read(b, 0, 4, 0);
      // A Prometheus segment cannot start so: 'T' (0x54) would be a "last" fragment with reserved bits set.
      if (bytesRead === 4) return b.readUInt32BE(0) === WAL_SEGMENT_MAGIC;
    } finally { await fh.close(); }
  }
  return false;
}

/** Replays the newest layout-1 checkpoint and the layout-1 segments it does not cover into `head`. */
async function replayLegacy(head: Head, shardDir: string, oldDir: string, checkpoints: number[]): Promise<WalReplayStatus> {
  const rp = new Replayer(head);
  const newest = checkpoints.length ? checkpoints[checkpoints.length - 1] : -1;
  if (newest >= 0) {
    const file = path.join(shardDir, `checkpoint.${segmentName(newest)}`);
    const b = new Uint8Array(await fsp.readFile(file));
    const { start, end } = checkFile(b, file, LEGACY_CHECKPOINT_MAGIC, 1, LEGACY_CHECKPOINT_VERSION);
    const r = new ByteReader(b, file, start, end);
    while (r.remaining > 0) {
      const type = r.u8();
      const len = r.uvarint();
      rp.apply(toPromRecord(type, r.bytes(len), file), file);
    }
  }
  const status: WalReplayStatus = { min: 0, max: 0, current: 0 };
  if (!(await exists(oldDir))) return status;
  const wal = await Wal.open({ dir: oldDir });
  try {
    let first = -1;
    await wal.replay(newest >= 0 ? { segment: newest, offset: 0 } : null, (type, payload, pos) => {
      const file = path.join(oldDir, segmentName(pos.segment));
      if (first < 0) first = pos.segment;
      status.max = status.current = pos.segment;
      rp.apply(toPromRecord(type, payload, file), file);
    });
    status.min = Math.max(first, 0);
  } finally {
    await wal.close();
  }
  return status;
}

/**
 * Re-encodes one layout-1 record as the Prometheus record it stands for (one apply path for both layouts):
 *   1 series      count <uvarint> · (ref <uvarint> · #labels <uvarint> · (name, value as len-prefixed UTF-8)*)*
 *   2 samples     count <uvarint> · (ref − prev <varint> · t − prev <varint> · value <8 bytes little-endian>)*
 *   3 tombstones  count <uvarint> · (ref <uvarint> · mint <varint> · maxt <varint>)*
 * Other types never existed; an unknown one is corruption.
 */
function toPromRecord(type: number, payload: Uint8Array, file: string): Uint8Array {
  const r = new ByteReader(payload, file);
  const n = r.uvarint();
  if (type === REC_SERIES) {
    const list = [];
    for (let i = 0; i < n; i++) {
      const ref = r.uvarint();
      const labels: Label[] = new Array(r.uvarint());
      for (let j = 0; j < labels.length; j++) labels[j] = { name: r.str(), value: r.str() };
      list.push({ ref, labels });
    }
    return encodeSeriesRecord(list);
  }
  if (type === REC_SAMPLES) {
    const refs = new Float64Array(n), ts = new Float64Array(n), vs = new Float64Array(n), idx = new Uint32Array(n);
    let ref = 0, t = 0;
    for (let i = 0; i < n; i++) {
      ref += r.varint(); t += r.varint();
      refs[i] = ref; ts[i] = t; idx[i] = i;
      r.f64Into(vs, i);
    }
    return encodeSamplesRecord(refs, ts, vs, idx, n);
  }
  if (type === REC_TOMBSTONES) {
    const list = [];
    for (let i = 0; i < n; i++) list.push({ ref: r.uvarint(), mint: r.varint(), maxt: r.varint() });
    return encodeTombstonesRecord(list);
  }
  throw new CorruptionError(file, 0, `unknown layout-1 TSDB WAL record type ${type}`);
}

async function removeLeftovers(shardDir: string, oldDir: string, checkpoints: number[]): Promise<void> {
  await fsp.rm(oldDir, { recursive: true, force: true });
  for (const c of checkpoints) await fsp.rm(path.join(shardDir, `checkpoint.${segmentName(c)}`), { force: true });
  await syncDir(shardDir);
}
