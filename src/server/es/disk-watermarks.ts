/**
 * The disk threshold monitor of a single-node Elasticsearch 6.8: every `cluster.info.update.interval` it reads
 * the file system holding the data directory and compares it with the low, high and flood-stage watermarks.
 * Low and high are logged when crossed (a single node has no replicas to hold back and nowhere to move shards);
 * the flood stage puts `index.blocks.read_only_allow_delete` on every index, so writes get ES's 403
 * `cluster_block_exception` before the disk fills and a write fails half-way. As in 6.8, the block stays until
 * an operator resets it (`PUT /_all/_settings {"index.blocks.read_only_allow_delete": null}`) once space is free.
 */
import { parseWatermark, watermarkExceeded } from '../../engine/documents/disk-watermark.ts';
import { parseTimeValue } from '../../engine/documents/settings.ts';
import type { EsCluster } from './cluster.ts';
import { FLOOD_STAGE_BLOCK } from './index-blocks.ts';
import { diskUsage } from './node-figures.ts';

const TICK_MS = 1000;
const LEVELS = ['low', 'high', 'flood_stage'] as const;
type Level = (typeof LEVELS)[number];

export interface DiskWatermarks {
  stop(): void;
}

export function startDiskWatermarks(cluster: EsCluster): DiskWatermarks {
  const log = cluster.ctx.log;
  let exceeded: Level | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  async function check(): Promise<void> {
    if (cluster.setting('cluster.routing.allocation.disk.threshold_enabled') !== 'true') return;
    const dir = cluster.ctx.dataDir;
    const d = diskUsage(dir);
    let level: Level | null = null;
    for (const l of LEVELS) {
      const key = `cluster.routing.allocation.disk.watermark.${l}`;
      if (watermarkExceeded(parseWatermark(cluster.setting(key), key), d.totalBytes, d.availableBytes)) level = l;
    }
    const free = `free: ${Math.round(d.availableBytes / 1024 ** 2)}mb[${((d.availableBytes / d.totalBytes) * 100).toFixed(1)}%]`;
    if (level !== exceeded) {
      if (level === null) log.info('disk usage is below the low watermark again', { path: dir, free });
      else log.warn(`${level.replace('_', ' ')} disk watermark [${cluster.setting(`cluster.routing.allocation.disk.watermark.${level}`)}] exceeded on the data path`
        + (level === 'flood_stage' ? ', all indices on this node will be marked read-only' : ''), { path: dir, free });
      exceeded = level;
    }
    if (level !== 'flood_stage') return;
    const unblocked = Object.values(cluster.state.indices).filter((m) => m.settings[FLOOD_STAGE_BLOCK] !== 'true').map((m) => m.name);
    if (unblocked.length === 0) return;
    await cluster.mutate((s) => {
      const indices = { ...s.indices };
      for (const n of unblocked) {
        const cur = indices[n];
        if (!cur) continue;
        indices[n] = { ...cur, settings: { ...cur.settings, [FLOOD_STAGE_BLOCK]: 'true' }, mappingVersion: cur.mappingVersion + 1 };
      }
      return { state: { ...s, version: s.version + 1, indices } };
    });
  }

  // A one-second tick that checks once the interval has passed: a changed interval applies at once.
  let last = Date.now();
  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      const ms = parseTimeValue(cluster.setting('cluster.info.update.interval'), 'cluster.info.update.interval') ?? 30_000;
      if (Date.now() - last < ms) { schedule(); return; }
      last = Date.now();
      check().catch((err: unknown) => log.error('disk watermark check failed', { err })).finally(schedule);
    }, TICK_MS);
    timer.unref();
  }
  schedule();
  return { stop: () => { stopped = true; if (timer) clearTimeout(timer); } };
}
