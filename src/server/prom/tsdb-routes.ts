/**
 * Metadata, admin and status endpoints of the metrics store, shaped as Prometheus 2.42 answers them:
 * `/api/v1/series`, `/labels`, `/label/:name/values`, `/admin/tsdb/{delete_series,clean_tombstones,snapshot}`,
 * `/status/tsdb`, `/status/walreplay`. Also owns the store's lifecycle hooks (open on start, a maintenance
 * tick every minute that also picks up new block directories, block reload on SIGHUP / `/-/reload`, close on stop).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { ServerContext, ServiceHooks } from '../context.ts';
import { bytesOf, durationMs, retentionTime } from '../flags.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Router } from '../router.ts';
import { promError, promErrorFrom, promSuccess } from './respond.ts';
import { formParams, matchersParam, ParamError, timeParam } from './tsdb-params.ts';
import { tsdbStatusBody } from './tsdb-status.ts';
import { CHUNK_RANGE_BUCKETS, CHUNK_SAMPLES_BUCKETS, CHUNK_SIZE_BUCKETS, type ShardFigures, type TickResult } from '../../engine/tsdb/index.ts';
import { EngineError } from '../../engine/errors.ts';
import { addBucketCounts, exponentialBuckets } from '../../engine/model/bucket-counts.ts';
import type { TsdbClient } from './tsdb-client.ts';

const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TICK_MS = 60_000;

/** A flat `[name, value, …]` label set as the JSON object Prometheus writes. */
const flatLabelsObject = (flat: readonly string[]): Record<string, string> => {
  const o: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) o[flat[i]] = flat[i + 1];
  return o;
};

/** Runs a handler, mapping parameter errors to `bad_data` and engine errors through respond.ts. */
function api(fn: (req: HttpRequest, params: Record<string, string>) => Promise<HttpResponse>) {
  return async (req: HttpRequest, params: Record<string, string>): Promise<HttpResponse> => {
    try { return await fn(req, params); } catch (err) {
      if (err instanceof ParamError) return promError('bad_data', err.message);
      return promErrorFrom(err);
    }
  };
}

/** Wraps a `match[]` parse error the way the endpoint does (series and admin prefix it, labels do not). */
function parseMatch(values: string[], prefixed: boolean) {
  try { return matchersParam(values); } catch (err) {
    const msg = (err as Error).message;
    throw new ParamError(prefixed ? `invalid parameter "match[]": ${msg}` : msg);
  }
}

export function tsdbRoot(ctx: ServerContext): string {
  const p = ctx.flags['storage.tsdb.path'];
  return p ? path.resolve(p) : path.join(ctx.dataDir, 'tsdb');
}

export function registerTsdbRoutes(router: Router, ctx: ServerContext, client: TsdbClient): ServiceHooks {
  const GP = ['GET', 'POST'];
  router.add(GP, '/api/v1/series', api(async (req) => {
    const p = formParams(req);
    const match = p.getAll('match[]');
    if (match.length === 0) return promError('bad_data', 'no match[] parameter provided');
    const start = timeParam(p, 'start', -Infinity), end = timeParam(p, 'end', Infinity);
    const sets = parseMatch(match, true);
    return promSuccess((await client.seriesFlat(sets, start, end)).map(flatLabelsObject));
  }));
  router.add(GP, '/api/v1/labels', api(async (req) => {
    const p = formParams(req);
    const start = timeParam(p, 'start', -Infinity), end = timeParam(p, 'end', Infinity);
    return promSuccess(await client.labelNames(parseMatch(p.getAll('match[]'), false), start, end));
  }));
  router.add(GP, '/api/v1/label/:name/values', api(async (req, params) => {
    const name = params.name;
    if (!LABEL_NAME_RE.test(name)) return promError('bad_data', `invalid label name: ${JSON.stringify(name)}`);
    const p = formParams(req);
    const start = timeParam(p, 'start', -Infinity), end = timeParam(p, 'end', Infinity);
    return promSuccess(await client.labelValues(name, parseMatch(p.getAll('match[]'), false), start, end));
  }));
  registerAdminRoutes(router, ctx, client);
  router.add('GET', '/api/v1/status/tsdb', api(async () => ({
    status: 200, headers: { 'Content-Type': 'application/json' }, body: tsdbStatusBody(await client.status(), 10),
  })));
  router.add('GET', '/api/v1/status/walreplay', api(async () => {
    const all = await client.walReplay();
    return promSuccess({
      min: Math.min(...all.map((s) => s.min)), max: Math.max(...all.map((s) => s.max)), current: Math.max(...all.map((s) => s.current)),
    });
  }));
  return lifecycle(ctx, client);
}

function registerAdminRoutes(router: Router, ctx: ServerContext, client: TsdbClient): void {
  const PP = ['POST', 'PUT'];
  const noContent: HttpResponse = { status: 204 };
  // Each clean_tombstones call, failed ones too, in Prometheus's default buckets; shown with the admin API off too.
  const cleanups = ctx.metrics.histogram('prometheus_tsdb_tombstone_cleanup_seconds', 'The time taken to recompact blocks to remove tombstones.', [],
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
  const cleanup = cleanups.seriesOf([]);
  // As in Prometheus, the admin endpoints exist but refuse to act unless --web.enable-admin-api is given.
  if (!ctx.flags['web.enable-admin-api']) {
    const disabled = (): HttpResponse => promError('unavailable', 'admin APIs disabled');
    for (const p of ['delete_series', 'clean_tombstones', 'snapshot']) router.add(PP, `/api/v1/admin/tsdb/${p}`, disabled);
    return;
  }
  router.add(PP, '/api/v1/admin/tsdb/delete_series', api(async (req) => {
    const p = formParams(req);
    const match = p.getAll('match[]');
    if (match.length === 0) return promError('bad_data', 'no match[] parameter provided');
    const start = timeParam(p, 'start', -Infinity), end = timeParam(p, 'end', Infinity);
    const sets = match.map((m) => parseMatch([m], true)[0]);
    await client.deleteSeries(sets, start, end);
    return noContent;
  }));
  router.add(PP, '/api/v1/admin/tsdb/clean_tombstones', api(async () => {
    const t0 = performance.now();
    try { await client.cleanTombstones(); } finally { cleanups.observeSeries(cleanup, (performance.now() - t0) / 1000); }
    return noContent;
  }));
  router.add(PP, '/api/v1/admin/tsdb/snapshot', api(async (req) => {
    const p = formParams(req);
    const raw = p.get('skip_head') ?? '';
    let skipHead = false;
    if (raw !== '') {
      const b = parseGoBool(raw);
      if (b === null) throw new ParamError(`invalid parameter "skip_head": unable to parse boolean: strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
      skipHead = b;
    }
    const name = `${snapshotStamp(new Date(ctx.now()))}-${randomBytes(8).toString('hex')}`;
    await client.snapshot(path.join(tsdbRoot(ctx), 'snapshots', name), !skipHead);
    return promSuccess({ name });
  }));
}

function parseGoBool(s: string): boolean | null {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return null;
}

/** Go's `20060102T150405Z0700` layout in UTC. */
function snapshotStamp(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}T${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
}

/** Opens the shards at start, runs block cutting / compaction / retention every minute, closes on stop. */
function lifecycle(ctx: ServerContext, client: TsdbClient): ServiceHooks {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  const args = {
    retentionMs: durationMs(retentionTime(ctx.flags)),
    retentionBytes: bytesOf(ctx.flags['storage.tsdb.retention.size']),
    blockRangeMs: durationMs(ctx.flags['storage.tsdb.min-block-duration']) || undefined,
    walCompression: ctx.flags['storage.tsdb.wal-compression'],
  };
  const figures = registerTsdbMetrics(ctx, client, args.retentionBytes);
  const tick = (): void => {
    // Each minute's pass is a trigger, as Prometheus's compaction loop counts one a minute.
    figures.compactionsTriggered++;
    running = running.then(() => client.tick({ retentionMs: args.retentionMs, retentionBytes: args.retentionBytes }))
      .then((perWorker) => figures.countTick(perWorker.flat() as TickResult[]))
      .catch((err) => {
        // Shutdown stops a compaction under way (its inputs stay, the next start compacts them): not a failure.
        if (err instanceof EngineError && err.code === 'TSDB_MAINTENANCE_STOPPED') { ctx.log.info('tsdb maintenance stopped for shutdown'); return; }
        figures.compactionsFailed++;
        ctx.log.error('tsdb maintenance failed', { err });
      });
  };
  return {
    async start() {
      await client.open(args);
      tick();
      timer = setInterval(tick, TICK_MS);
      timer.unref();
    },
    /** SIGHUP or /-/reload: pick up block directories written since start (e.g. by an import). */
    async reload() {
      await client.reloadBlocks();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await running;
      await client.close();
    },
  };
}

/**
 * `prometheus_tsdb_*` from the shards' cheap figures (asked for at each `/metrics` scrape) and from the
 * maintenance ticks' outcomes, under the names the standard Prometheus self-monitoring alerts use.
 */
function registerTsdbMetrics(ctx: ServerContext, client: TsdbClient, retentionBytes: number) {
  let shards: ShardFigures[] = [];
  // Prometheus's buckets (1 s doubling to 8,192 s); the series exists, empty, before the first compaction, as there.
  // Its count is the number of compactions (`prometheus_tsdb_compactions_total`).
  const compactionDurations = ctx.metrics.histogram('prometheus_tsdb_compaction_duration_seconds', 'Duration of compaction runs', [],
    exponentialBuckets(1, 2, 14));
  const compactionDuration = compactionDurations.seriesOf([]);
  // The chunks each head cut writes, as Prometheus records its level-1 block writes (counted in the shard workers).
  const cutChunkFamilies = [
    ['size', 'prometheus_tsdb_compaction_chunk_size_bytes', 'Final size of chunks on their first compaction', CHUNK_SIZE_BUCKETS],
    ['samples', 'prometheus_tsdb_compaction_chunk_samples', 'Final number of samples on their first compaction', CHUNK_SAMPLES_BUCKETS],
    ['range', 'prometheus_tsdb_compaction_chunk_range_seconds', 'Final time range of chunks on their first compaction', CHUNK_RANGE_BUCKETS],
  ] as const;
  const cutChunks = cutChunkFamilies.map(([key, name, help, buckets]) => {
    const h = ctx.metrics.histogram(name, help, [], buckets);
    return { key, h, series: h.seriesOf([]) };
  });
  // Summaries without quantiles, as Prometheus registers these two: sum and count only.
  const headGc = ctx.metrics.summary('prometheus_tsdb_head_gc_duration_seconds', 'Runtime of garbage collection in the head block.', [], []).seriesOf([]);
  const walTruncate = ctx.metrics.summary('prometheus_tsdb_wal_truncate_duration_seconds', 'Duration of WAL truncation.', [], []).seriesOf([]);
  const totals = {
    compactionsTriggered: 0, headTruncations: 0, timeRetentions: 0, sizeRetentions: 0, compactionsFailed: 0,
    countTick(results: TickResult[]): void {
      for (const r of results) {
        totals.headTruncations += r.blocksCut;
        totals.timeRetentions += r.timeRetentions;
        totals.sizeRetentions += r.sizeRetentions;
        for (const s of r.compactionSeconds) compactionDurations.observeSeries(compactionDuration, s);
        for (const c of cutChunks) addBucketCounts(c.series, r.cutChunks[c.key]);
        for (const s of r.headGcSeconds) headGc.observe(s);
        for (const s of r.walTruncateSeconds) walTruncate.observe(s);
      }
    },
  };
  ctx.metrics.addCollector(async () => { shards = await client.figures(); });
  const sum = (pick: (f: ShardFigures) => number) => () => [[[], shards.reduce((a, f) => a + pick(f), 0)]] as [string[], number][];
  const extreme = (pick: (f: ShardFigures) => number | null, min: boolean, scale: number) => () => {
    const vs = shards.map(pick).filter((v): v is number => v !== null);
    // An empty head reports Go's int64 extremes in Prometheus; NaN-free sentinels keep dashboards readable.
    const v = vs.length ? (min ? Math.min(...vs) : Math.max(...vs)) : (min ? 9223372036854775807 : -9223372036854775808);
    return [[[], vs.length ? v / scale : v]] as [string[], number][];
  };
  const m = ctx.metrics;
  m.gauge('prometheus_tsdb_head_series', 'Total number of series in the head block.', [], sum((f) => f.headSeries));
  m.gauge('prometheus_tsdb_head_chunks', 'Total number of chunks in the head block.', [], sum((f) => f.headChunks));
  // The head holds floats only: the `histogram` children, which Prometheus 2.42 exposes from the start, stay 0.
  const byType = (pick: (f: ShardFigures) => number, types = ['float', 'histogram']) => () =>
    types.map((t) => [[t], t === 'float' ? shards.reduce((a, f) => a + pick(f), 0) : 0]) as [string[], number][];
  m.gauge('prometheus_tsdb_head_samples_appended_total', 'Total number of appended samples.', ['type'], byType((f) => f.samplesAppended), 'counter');
  m.gauge('prometheus_tsdb_out_of_order_samples_total', 'Total number of out of order samples ingestion failed attempts due to out of order being disabled.', ['type'], byType((f) => f.outOfOrderRefused), 'counter');
  m.gauge('prometheus_tsdb_out_of_bound_samples_total', 'Total number of out of bound samples ingestion failed attempts with out of order support disabled.', ['type'], byType((f) => f.outOfBoundsRefused, ['float']), 'counter');
  m.gauge('prometheus_tsdb_head_series_created_total', 'Total number of series created in the head', [], sum((f) => f.seriesCreated), 'counter');
  m.gauge('prometheus_tsdb_head_series_removed_total', 'Total number of series removed in the head', [], sum((f) => f.seriesRemoved), 'counter');
  m.gauge('prometheus_tsdb_head_chunks_created_total', 'Total number of chunks created in the head', [], sum((f) => f.chunksCreated), 'counter');
  m.gauge('prometheus_tsdb_head_chunks_removed_total', 'Total number of chunks removed in the head', [], sum((f) => f.chunksRemoved), 'counter');
  m.gauge('prometheus_tsdb_head_min_time', 'Minimum time bound of the head block. The unit is decided by the library consumer.', [], extreme((f) => f.headMinTime, true, 1));
  m.gauge('prometheus_tsdb_head_max_time', 'Maximum timestamp of the head block. The unit is decided by the library consumer.', [], extreme((f) => f.headMaxTime, false, 1));
  m.gauge('prometheus_tsdb_head_min_time_seconds', 'Minimum time bound of the head block.', [], extreme((f) => f.headMinTime, true, 1000));
  m.gauge('prometheus_tsdb_head_max_time_seconds', 'Maximum timestamp of the head block.', [], extreme((f) => f.headMaxTime, false, 1000));
  m.gauge('prometheus_tsdb_lowest_timestamp', 'Lowest timestamp value stored in the database. The unit is decided by the library consumer.', [], extreme((f) => f.lowestTime, true, 1));
  m.gauge('prometheus_tsdb_lowest_timestamp_seconds', 'Lowest timestamp value stored in the database.', [], extreme((f) => f.lowestTime, true, 1000));
  m.gauge('prometheus_tsdb_blocks_loaded', 'Number of currently loaded data blocks', [], sum((f) => f.blocksLoaded));
  m.gauge('prometheus_tsdb_storage_blocks_bytes', 'The number of bytes that are currently used for local storage by all blocks.', [], sum((f) => f.blocksBytes));
  m.gauge('prometheus_tsdb_retention_limit_bytes', 'Max number of bytes to be retained in the tsdb blocks, configured 0 means disabled', [], () => [[[], retentionBytes]]);
  m.gauge('prometheus_tsdb_compactions_total', 'Total number of compactions that were executed for the partition.', [], () => [[[], compactionDuration.count]], 'counter');
  m.gauge('prometheus_tsdb_compactions_failed_total', 'Total number of compactions that failed for the partition.', [], () => [[[], totals.compactionsFailed]], 'counter');
  m.gauge('prometheus_tsdb_head_truncations_total', 'Total number of head truncations attempted.', [], () => [[[], totals.headTruncations]], 'counter');
  m.gauge('prometheus_tsdb_checkpoint_creations_total', 'Total number of checkpoint creations attempted.', [], sum((f) => f.wal.checkpointsCreated), 'counter');
  m.gauge('prometheus_tsdb_checkpoint_creations_failed_total', 'Total number of checkpoint creations that failed.', [], sum((f) => f.wal.checkpointCreationsFailed), 'counter');
  m.gauge('prometheus_tsdb_checkpoint_deletions_total', 'Total number of checkpoint deletions attempted.', [], sum((f) => f.wal.checkpointDeletions), 'counter');
  m.gauge('prometheus_tsdb_checkpoint_deletions_failed_total', 'Total number of checkpoint deletions that failed.', [], sum((f) => f.wal.checkpointDeletionsFailed), 'counter');
  m.gauge('prometheus_tsdb_wal_truncations_total', 'Total number of write log truncations attempted.', [], sum((f) => f.wal.truncations), 'counter');
  m.gauge('prometheus_tsdb_wal_truncations_failed_total', 'Total number of write log truncations that failed.', [], sum((f) => f.wal.truncationsFailed), 'counter');
  m.gauge('prometheus_tsdb_wal_corruptions_total', 'Total number of WAL corruptions.', [], sum((f) => f.wal.corruptions), 'counter');
  // One WAL per shard here: the shards' latest fsyncs together, and the newest segment any of them writes.
  m.summary('prometheus_tsdb_wal_fsync_duration_seconds', 'Duration of write log fsync.').readSeries([], () => ({
    values: shards.flatMap((f) => f.walFsyncSeconds.values),
    sum: shards.reduce((a, f) => a + f.walFsyncSeconds.sum, 0),
    count: shards.reduce((a, f) => a + f.walFsyncSeconds.count, 0),
  }));
  m.gauge('prometheus_tsdb_wal_segment_current', 'Write log segment index that TSDB is currently writing to.', [], () => [[[], shards.reduce((a, f) => Math.max(a, f.walSegmentCurrent), 0)]]);
  m.gauge('prometheus_tsdb_head_series_not_found_total', 'Total number of requests for series that were not found.', [], sum((f) => f.seriesNotFound), 'counter');
  m.gauge('prometheus_tsdb_data_replay_duration_seconds', 'Time taken to replay the data on disk.', [], () => [[[], client.replaySeconds]]);
  m.gauge('prometheus_tsdb_reloads_total', 'Number of times the database reloaded block data from disk.', [], () => [[[], client.reloads.total]], 'counter');
  m.gauge('prometheus_tsdb_reloads_failures_total', 'Number of times the database failed to reloadBlocks block data from disk.', [], () => [[[], client.reloads.failed]], 'counter');
  m.gauge('prometheus_tsdb_compactions_triggered_total', 'Total number of triggered compactions for the partition.', [], () => [[[], totals.compactionsTriggered]], 'counter');
  m.gauge('prometheus_tsdb_time_retentions_total', 'The number of times that blocks were deleted because the maximum time limit was exceeded.', [], () => [[[], totals.timeRetentions]], 'counter');
  m.gauge('prometheus_tsdb_size_retentions_total', 'The number of times that blocks were deleted because the maximum number of bytes was exceeded.', [], () => [[[], totals.sizeRetentions]], 'counter');
  return totals;
}
