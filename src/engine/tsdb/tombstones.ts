/**
 * A block's `tombstones` file (docs/format.md "TSDB block tombstones"): per series ref, the deleted
 * intervals. Rewritten whole (atomically) on every delete, as Prometheus does.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Interval } from './chunk-meta.ts';
import { ByteReader } from '../codec/byte-buf.ts';
import { beginFile, checkFile, endFile, writeFileAtomic } from './file-frame.ts';
import { TSDB_TOMBSTONES_MAGIC, TSDB_TOMBSTONES_VERSION } from '../codec/format-ids.ts';

export type Tombstones = Map<number, Interval[]>;

export function encodeTombstonesFile(ts: Tombstones): Uint8Array {
  const w = beginFile(TSDB_TOMBSTONES_MAGIC, TSDB_TOMBSTONES_VERSION, 64 + ts.size * 16);
  const refs = [...ts.keys()].sort((a, b) => a - b);
  w.uvarint(refs.length);
  for (const ref of refs) {
    const ivs = ts.get(ref)!;
    w.uvarint(ref);
    w.uvarint(ivs.length);
    for (const iv of ivs) { w.varint(iv[0]); w.varint(iv[1]); }
  }
  return endFile(w);
}

export async function readTombstones(dir: string): Promise<Tombstones> {
  const file = path.join(dir, 'tombstones');
  let b: Uint8Array;
  try { b = new Uint8Array(await fsp.readFile(file)); } catch { return new Map(); }
  const { start, end } = checkFile(b, file, TSDB_TOMBSTONES_MAGIC, 1, TSDB_TOMBSTONES_VERSION);
  const r = new ByteReader(b, file, start, end);
  const out: Tombstones = new Map();
  const n = r.uvarint();
  for (let i = 0; i < n; i++) {
    const ref = r.uvarint();
    const k = r.uvarint();
    const ivs: Interval[] = [];
    for (let j = 0; j < k; j++) ivs.push([r.varint(), r.varint()]);
    out.set(ref, ivs);
  }
  return out;
}

export async function writeTombstones(dir: string, ts: Tombstones): Promise<void> {
  await writeFileAtomic(path.join(dir, 'tombstones'), encodeTombstonesFile(ts));
}

export function countIntervals(ts: Tombstones): number {
  let n = 0;
  for (const ivs of ts.values()) n += ivs.length;
  return n;
}
