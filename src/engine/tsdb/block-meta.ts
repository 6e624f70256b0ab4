/** `meta.json` of a block, shaped like Prometheus's (`tsdb/block.go` BlockMeta) plus a Tessera section. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CorruptionError, FormatVersionError } from '../errors.ts';
import { writeFileAtomic } from '../store/durable-files.ts';
import { TSDB_META_VERSION } from '../codec/format-ids.ts';

export interface BlockMeta {
  ulid: string;
  /** Inclusive start and exclusive end, ms (as Prometheus: maxTime is the last sample + 1 or the range end). */
  minTime: number;
  maxTime: number;
  stats: { numSamples: number; numSeries: number; numChunks: number; numTombstones?: number };
  compaction: { level: number; sources: string[]; parents?: { ulid: string; minTime: number; maxTime: number }[]; deletable?: boolean };
  version: number;
  /**
   * `cutFromHead`: holds data cut from a head of this TSDB. `headCuts`: for a block of the shared directory, shard
   * number → max time of that shard's head data in it (bounds the shard's head after a restart, shard-layout.ts).
   */
  tessera?: { cutFromHead?: boolean; headCuts?: Record<string, number> };
}

export async function readMeta(dir: string): Promise<BlockMeta> {
  return readMetaFile(dir).meta;
}

/** meta.json of the block in `dir`, checked, and the file's size (part of the block's size, as Prometheus counts it). */
export function readMetaFile(dir: string): { meta: BlockMeta; bytes: number } {
  const file = path.join(dir, 'meta.json');
  let meta: BlockMeta, bytes: number;
  try {
    const b = readFileSync(file);
    bytes = b.length;
    meta = JSON.parse(b.toString('utf8')) as BlockMeta;
  } catch (err) {
    throw new CorruptionError(file, 0, `cannot read meta.json: ${(err as Error).message}`);
  }
  if (meta.version !== TSDB_META_VERSION) throw new FormatVersionError(file, meta.version, TSDB_META_VERSION, TSDB_META_VERSION);
  if (typeof meta.ulid !== 'string' || typeof meta.minTime !== 'number' || typeof meta.maxTime !== 'number') {
    throw new CorruptionError(file, 0, 'meta.json lacks ulid/minTime/maxTime');
  }
  return { meta, bytes };
}

export async function writeMeta(dir: string, meta: BlockMeta): Promise<void> {
  await writeFileAtomic(path.join(dir, 'meta.json'), new TextEncoder().encode(JSON.stringify(meta, null, '\t')));
}
