/**
 * The TSDB directory of a sharded store (docs/format.md "TSDB directory layout", version 2): the blocks live
 * directly in it, one per time range for the whole TSDB, as in a Prometheus data directory; `shard-<n>/` holds
 * shard worker n's WAL, head chunks and the *parts* its head cuts, which the next maintenance pass merges into
 * the shared blocks. A merged block names its inputs in `compaction.parents`, so a part (or compacted block)
 * still on disk after a crash is recognised as superseded and deleted, never read twice.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { TSDB_LAYOUT_FILE, TSDB_LAYOUT_VERSION } from '../codec/format-ids.ts';
import { CorruptionError, FormatVersionError } from '../errors.ts';
import { writeFileAtomic } from '../store/durable-files.ts';
import type { BlockMeta } from './block-meta.ts';

const SHARD_DIR_RE = /^shard-(\d+)$/;

/**
 * Checks the layout marker of the TSDB directory `root`: a newer version is refused (FormatVersionError); a
 * directory without one is layout 1 (blocks inside the shard directories) or new, and `write` records version
 * 2 in it — layout-1 shard blocks are then merged like parts by the first maintenance pass. Returns the
 * version found (0 when there was no marker).
 */
export async function checkTsdbLayout(root: string, write: boolean): Promise<number> {
  const file = path.join(root, TSDB_LAYOUT_FILE);
  let found = 0;
  try {
    const text = await fsp.readFile(file, 'utf8');
    const v = (JSON.parse(text) as { version?: unknown }).version;
    if (typeof v !== 'number') throw new CorruptionError(file, 0, 'layout marker without a version');
    found = v;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      if (err instanceof CorruptionError) throw err;
      throw new CorruptionError(file, 0, `cannot read the layout marker: ${(err as Error).message}`);
    }
  }
  if (found > TSDB_LAYOUT_VERSION || (found !== 0 && found < 2)) throw new FormatVersionError(file, found, 1, TSDB_LAYOUT_VERSION);
  if (found === 0 && write) {
    await fsp.mkdir(root, { recursive: true });
    await writeFileAtomic(file, JSON.stringify({ version: TSDB_LAYOUT_VERSION }) + '\n');
  }
  return found;
}

/** Shard number of a shard directory (`…/shard-3` → 3), -1 for any other directory. */
export function shardOfDir(dir: string): number {
  const m = SHARD_DIR_RE.exec(path.basename(dir));
  return m ? Number(m[1]) : -1;
}

/** The shard directories under `root`. */
export async function shardDirs(root: string): Promise<string[]> {
  const names = await fsp.readdir(root).catch(() => [] as string[]);
  return names.filter((n) => SHARD_DIR_RE.test(n)).sort().map((n) => path.join(root, n));
}

/** ULIDs named as parents by any of `metas`: blocks already merged into another, which must not be served. */
export function supersededUlids(metas: readonly BlockMeta[]): Set<string> {
  const out = new Set<string>();
  for (const m of metas) for (const p of m.compaction.parents ?? []) out.add(p.ulid);
  return out;
}

/**
 * Shard number → max time of that shard's head data in the block at `dir`: recorded in a shared block's meta,
 * and for a part (a block in `shard-<n>/` cut from its head, also a layout-1 shard block) its own range.
 */
export function headCutsOf(dir: string, meta: BlockMeta): Record<string, number> {
  if (meta.tessera?.headCuts) return meta.tessera.headCuts;
  const n = shardOfDir(path.dirname(dir));
  return n >= 0 && meta.tessera?.cutFromHead ? { [n]: meta.maxTime } : {};
}

/** The per-shard maxima of several blocks' `headCutsOf`. */
export function mergeHeadCuts(blocks: readonly { dir: string; meta: BlockMeta }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const b of blocks) {
    const cuts = headCutsOf(b.dir, b.meta);
    for (const k in cuts) out[k] = Math.max(out[k] ?? -Infinity, cuts[k]);
  }
  return out;
}

/** Deletes a block directory so that a crash midway never leaves a half-deleted block that looks valid. */
export async function removeBlockDir(dir: string): Promise<void> {
  const trash = `${dir}.deleted`;
  await fsp.rename(dir, trash).catch(() => {});
  await fsp.rm(trash, { recursive: true, force: true });
}
