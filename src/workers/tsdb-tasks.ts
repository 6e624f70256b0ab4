/**
 * Worker adapters for the metrics store. Each shard worker owns one TSDB shard under
 * `<tsdb path>/shard-<workerId>` (head + WAL + the blocks cut from it); worker 0 also serves block directories
 * written straight into `<tsdb path>` (imports). Series reach a worker by label-set hash (see tsdb-client).
 */
import path from 'node:path';
import type { Labels, Matcher, MatchType } from '../engine/tsdb/api.ts';
import { newMatcher } from '../engine/tsdb/api.ts';
import { InvalidArgumentError } from '../engine/errors.ts';
import { cleanTombstones, headStatus, snapshot, tick, Tsdb } from '../engine/tsdb/index.ts';
import { Wal } from '../engine/wal/index.ts';
import type { TaskTable, WorkerInit } from './protocol.ts';
import type { AppendArgs, MatcherWire, RangeArgs, SelectArgs, SelectReply, TsdbOpenArgs } from './tsdb-wire.ts';

let opened: Promise<Tsdb> | null = null;
let openArgs: TsdbOpenArgs = { retentionMs: 15 * 86_400_000, retentionBytes: 0 };

export function tsdbRoot(ctx: WorkerInit): string {
  const p = ctx.options.tsdbPath as string | undefined;
  return p ? p : path.join(ctx.dataDir, 'tsdb');
}

function db(ctx: WorkerInit): Promise<Tsdb> {
  opened ??= (async () => {
    const root = tsdbRoot(ctx);
    const compress = openArgs.walCompression ?? (ctx.options.walCompression as boolean | undefined) ?? true;
    return Tsdb.open({
      dir: path.join(root, `shard-${ctx.workerId}`),
      openWal: (dir) => Wal.open({
        dir, compress,
        segmentSizeBytes: ctx.options.walSegmentSizeBytes as number | undefined,
        repair: ctx.options.walRepair as boolean | undefined,
      }),
      retentionMs: openArgs.retentionMs,
      retentionBytes: openArgs.retentionBytes,
      blockRangeMs: openArgs.blockRangeMs,
      maxBlockDurationMs: openArgs.maxBlockDurationMs,
      extraBlockDirs: ctx.workerId === 0 ? [root] : [],
    });
  })();
  return opened;
}

export function toLabels(flat: readonly string[]): Labels {
  const out = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push({ name: flat[i], value: flat[i + 1] });
  return out;
}

function flatLabels(ls: Labels): string[] {
  const out: string[] = new Array(ls.length * 2);
  for (let i = 0; i < ls.length; i++) { out[2 * i] = ls[i].name; out[2 * i + 1] = ls[i].value; }
  return out;
}

function matchers(ws: readonly MatcherWire[]): Matcher[] {
  return ws.map((w) => {
    try { return newMatcher(w.type as MatchType, w.name, w.value); } catch (err) {
      throw InvalidArgumentError.of('INVALID_ARGUMENT', [`invalid regular expression "${w.value}": ${(err as Error).message}`]);
    }
  });
}

async function select(a: SelectArgs, ctx: WorkerInit): Promise<SelectReply> {
  const d = await db(ctx);
  const got = d.select(matchers(a.matchers), a.mint, a.maxt);
  const offsets = new Uint32Array(got.length + 1);
  for (let i = 0; i < got.length; i++) offsets[i + 1] = offsets[i] + got[i].t.length;
  const t = new Float64Array(offsets[got.length]), v = new Float64Array(offsets[got.length]);
  for (let i = 0; i < got.length; i++) { t.set(got[i].t, offsets[i]); v.set(got[i].v, offsets[i]); }
  return { labels: got.map((s) => flatLabels(s.labels)), offsets, t, v };
}

async function labelNames(a: RangeArgs, ctx: WorkerInit): Promise<string[]> {
  const q = (await db(ctx)).querier(a.mint, a.maxt);
  if (a.selectors.length === 0) return q.labelNames([]);
  const set = new Set<string>();
  for (const s of a.selectors) for (const n of q.labelNames(matchers(s))) set.add(n);
  return [...set];
}

async function labelValues(a: RangeArgs & { name: string }, ctx: WorkerInit): Promise<string[]> {
  const q = (await db(ctx)).querier(a.mint, a.maxt);
  if (a.selectors.length === 0) return q.labelValues(a.name, []);
  const set = new Set<string>();
  for (const s of a.selectors) for (const v of q.labelValues(a.name, matchers(s))) set.add(v);
  return [...set];
}

export const tsdbTasks: TaskTable = {
  'tsdb.open': async (a: TsdbOpenArgs, ctx) => {
    if (!opened) openArgs = a;
    const d = await db(ctx);
    return d.walReplay;
  },
  'tsdb.append': async (a: AppendArgs, ctx) => (await db(ctx)).append({ series: a.series.map(toLabels), sidx: a.sidx, ts: a.ts, vs: a.vs }),
  'tsdb.select': select,
  'tsdb.labelNames': labelNames,
  'tsdb.labelValues': labelValues,
  'tsdb.series': async (a: RangeArgs, ctx) => (await db(ctx)).series(a.selectors.map(matchers), a.mint, a.maxt).map(flatLabels),
  'tsdb.deleteSeries': async (a: RangeArgs, ctx) => {
    const d = await db(ctx);
    for (const s of a.selectors) await d.deleteSeries(matchers(s), a.mint, a.maxt);
    return null;
  },
  'tsdb.cleanTombstones': async (_a: unknown, ctx) => cleanTombstones(await db(ctx)),
  'tsdb.snapshot': async (a: { dir: string; withHead: boolean }, ctx) => { await snapshot(await db(ctx), a.dir, a.withHead); return null; },
  'tsdb.status': async (_a: unknown, ctx) => headStatus(await db(ctx)),
  'tsdb.walReplay': async (_a: unknown, ctx) => (await db(ctx)).walReplay,
  'tsdb.tick': async (_a: unknown, ctx) => tick(await db(ctx)),
  'tsdb.reloadBlocks': async (_a: unknown, ctx) => { await (await db(ctx)).reloadBlocks(); return null; },
  'tsdb.close': async () => {
    if (!opened) return null;
    const d = await opened;
    opened = null;
    await d.close();
    return null;
  },
};
