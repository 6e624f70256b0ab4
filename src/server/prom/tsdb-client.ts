/**
 * Main-thread client of the metrics store: routes samples to the shard worker that owns their series (by
 * label-set hash), fans reads out to every worker and merges the answers (a series can have data on two
 * workers, e.g. an imported block on worker 0 and live samples on its owner). PromQL, scraping, remote write
 * and the HTTP routes all go through this class.
 */
import type { FetchedSeries, Label, Labels, Matcher } from '../../engine/tsdb/api.ts';
import type { ShardFigures } from '../../engine/tsdb/index.ts';
import { compareLabels } from '../../engine/tsdb/api.ts';
import { compareFlatLabels, labelsKeyOfFlat, labelsToFlat, shardOfSeries } from '../../engine/tsdb/labels.ts';
import { mergeSamples } from '../../engine/tsdb/packed-series.ts';
import { sortedUnion, sortedUnionBy } from '../../engine/tsdb/sorted-union.ts';
import type { PackedSelect } from '../../engine/tsdb/packed-series.ts';
import type { SampleColumns } from '../../engine/scrape/sample-columns.ts';
import type { SeriesTable } from '../../engine/scrape/series-table.ts';
import { outOfBand } from '../../engine/codec/msgpack.ts';
import type { AppendArgs, MatcherWire, OpArgs, OpName, OpResult, SelectArgs, SelectorRangeArgs, TsdbOpenArgs, WorkerTransport } from '../../workers/protocol.ts';

/** What the client needs of the shard pool (ShardPool satisfies it; tests may pass an in-process stand-in). */
/** The worker calls the client makes (the shard pool, or an in-process stand-in in tests). */
export type TsdbTransport = WorkerTransport;

export interface SampleIn { labels: Labels | Readonly<Record<string, string>>; t: number; v: number }

export interface AppendSummary { added: number; outOfOrder: number; duplicate: number; outOfBounds: number; firstError: string }

export interface WalReplayStatus { min: number; max: number; current: number }

/** The merged raw figures of `/api/v1/status/tsdb` (see tsdb-routes for the response shape). */
export interface ShardStatus {
  numSeries: number; chunkCount: number; minTime: number | null; maxTime: number | null; blocksMaxTime: number | null;
  pairs: Record<string, (string | number)[]>;
}

type MatcherLike = Matcher | MatcherWire;

const wire = (ms: readonly MatcherLike[]): MatcherWire[] => ms.map((m) => ({ type: m.type, name: m.name, value: m.value }));

/** Sorted label set without empty values, from either input form. */
export function toSortedLabels(ls: Labels | Readonly<Record<string, string>>): Label[] {
  const out: Label[] = [];
  if (Array.isArray(ls)) { for (const l of ls as Labels) if (l.value !== '') out.push({ name: l.name, value: l.value }); }
  else for (const name in ls) { const value = (ls as Record<string, string>)[name]; if (value !== '') out.push({ name, value }); }
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}

function toLabels(flat: readonly string[]): Label[] {
  const out: Label[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push({ name: flat[i], value: flat[i + 1] });
  return out;
}


/**
 * One worker's share of an append: its distinct series (`entries`), and per sample its entry, time and
 * value. Sample columns are typed and sized exactly, so the NaN payload of a staleness marker survives and
 * no per-sample boxing happens.
 */
interface Group { entries: GroupEntries; n: number; sidx: Uint32Array; ts: Float64Array; vs: Float64Array }

function newGroup(entries: GroupEntries, capacity: number): Group {
  return { entries, n: 0, sidx: new Uint32Array(capacity), ts: new Float64Array(capacity), vs: new Float64Array(capacity) };
}

/** A group's distinct series and where their refs are kept: route objects (`append`), or a producer's `SeriesTable` (`appendColumns`). */
interface GroupEntries {
  readonly length: number;
  /** Entry `j`'s ref from worker `w` in `epoch`, 0 when it has none valid there. */
  ref(j: number, w: number, epoch: number): number;
  /** Entry `j`'s sorted label set, flat. */
  flat(j: number): string[];
  setRef(j: number, ref: number, w: number, epoch: number): void;
  clearRef(j: number): void;
  /** The entries `js`, in that order. */
  subset(js: readonly number[]): GroupEntries;
}

class RouteEntries implements GroupEntries {
  constructor(readonly routes: Route[] = []) {}
  get length(): number { return this.routes.length; }
  ref(j: number, _w: number, epoch: number): number { const r = this.routes[j]; return r.ref > 0 && r.epoch === epoch ? r.ref : 0; }
  flat(j: number): string[] { const r = this.routes[j]; return r.flat ??= labelsToFlat(toSortedLabels(r.src)); }
  // `smallOr`: a value read from a Float64Array would otherwise turn the routes' `ref` field into a boxed double.
  setRef(j: number, ref: number, _w: number, epoch: number): void { const r = this.routes[j]; r.ref = smallOr(ref); r.epoch = smallOr(epoch); r.flat = null; }
  clearRef(j: number): void { this.routes[j].ref = 0; }
  subset(js: readonly number[]): GroupEntries { return new RouteEntries(js.map((j) => this.routes[j])); }
}

/**
 * Entries of a producer's series table, by the ids of the table's generation when the append was made: a
 * producer may renumber its series (evict some) while the append is in flight (the remote-write receiver
 * does, between requests), so ids are mapped to the current ones before a ref is written or labels decoded.
 */
class TableEntries implements GroupEntries {
  constructor(private readonly table: SeriesTable, readonly sids: Int32Array, readonly length: number,
    private readonly generation = table.generation) {}
  private id(j: number): number { return this.table.current(this.sids[j], this.generation); }
  ref(j: number, w: number, epoch: number): number { const id = this.id(j); return id < 0 ? 0 : this.table.refFor(id, w, epoch); }
  flat(j: number): string[] {
    const id = this.id(j);
    // Cannot happen with this module's producers (they evict only series idle for longer than an append takes).
    if (id < 0) throw new Error('series evicted by its producer while its samples were being appended');
    return this.table.flat(id);
  }
  setRef(j: number, ref: number, w: number, epoch: number): void { const id = this.id(j); if (id >= 0) this.table.setRef(id, ref, w, epoch); }
  clearRef(j: number): void { const id = this.id(j); if (id >= 0) this.table.clearRef(id); }
  subset(js: readonly number[]): GroupEntries {
    const sids = new Int32Array(js.length);
    for (let k = 0; k < js.length; k++) sids[k] = this.sids[js[k]];
    return new TableEntries(this.table, sids, js.length, this.generation);
  }
}

function addSummary(sum: AppendSummary, r: AppendSummary): void {
  sum.added += r.added; sum.outOfOrder += r.outOfOrder; sum.duplicate += r.duplicate; sum.outOfBounds += r.outOfBounds;
  sum.firstError ||= r.firstError;
}

/** Where a label set goes; `ref`/`epoch` are the owner worker's series ref once it has told us. */
interface Route {
  /**
   * The label set as given, and its flat form until the owner worker has answered with a ref (then dropped:
   * a scrape target's series are routed for their whole life, and are sent by ref).
   */
  src: SampleIn['labels']; flat: string[] | null; w: number; n: number; ref: number; epoch: number;
  /** The append call that last gave this route a table entry, and that entry: grouping needs no map. */
  call: number; slot: number;
}

/** `x` as a small integer when it is an int32 (kept unboxed in object fields), else as it is. */
function smallOr(x: number): number {
  const i = x | 0;
  return i === x ? i : x;
}

export class TsdbClient {
  private readonly routes = new WeakMap<object, Route>();
  /** Last epoch each worker's shard reported (refs are only valid within it). */
  private readonly epochs: number[] = [];
  private calls = 0;
  /** Serialises block-changing operations (see `serially`). */
  private maintenance: Promise<unknown> = Promise.resolve();
  /** Scratch of `append`: each sample's route between its two passes (overwritten by the next append). */
  private readonly routed: Route[] = [];
  /** Scratch of `append`: the samples' times and values as columns. */
  private ts = new Float64Array(0);
  private vs = new Float64Array(0);
  /** Scratch of `appendColumns`, by series id: the call that last gave the series a group entry, and that entry. */
  private entryCall = new Int32Array(0);
  private entryOf = new Int32Array(0);
  /** Scratch of `appendColumns`: each sample's worker. */
  private workerOf = new Int32Array(0);

  constructor(private readonly pool: TsdbTransport) {}

  get workers(): number { return this.pool.size; }

  /** Opens every shard (replaying its WAL); resolves when all are ready. */
  async open(args: TsdbOpenArgs): Promise<WalReplayStatus[]> {
    const t0 = performance.now();
    const status = await this.all('tsdb.open', args);
    this.replaySeconds = (performance.now() - t0) / 1000;
    this.reloads.total++; // the blocks read at open, as Prometheus counts its first reload
    return status;
  }

  /** How long opening the shards took (blocks, WAL and head chunks), for `prometheus_tsdb_data_replay_duration_seconds`. */
  replaySeconds = 0;

  /**
   * Times the workers re-read the block directories (`prometheus_tsdb_reloads_total`), and how many of those
   * failed: a damaged block found on a reload fails it (PrometheusTSDBReloadsFailing reads the failures).
   */
  readonly reloads = { total: 0, failed: 0 };

  private async reloadAll(): Promise<void> {
    this.reloads.total++;
    try {
      await this.all('tsdb.reloadBlocks', null);
    } catch (e) {
      this.reloads.failed++;
      throw e;
    }
  }

  /**
   * Appends samples; resolves after every involved worker has fsynced its WAL record. Per-sample refusals
   * (out of order, duplicate, out of bounds) are counted, not thrown.
   */
  append(samples: readonly SampleIn[]): Promise<AppendSummary> {
    const n = this.pool.size;
    const routed = this.routed;
    let ts = this.ts, vs = this.vs;
    if (ts.length < samples.length) ts = this.ts = new Float64Array(samples.length), vs = this.vs = new Float64Array(samples.length);
    for (let i = 0; i < samples.length; i++) {
      const s = samples[i];
      routed[i] = this.route(s.labels, n);
      ts[i] = s.t; vs[i] = s.v;
    }
    return this.appendRouted(samples.length, ts, vs);
  }

  /**
   * `append` in columns (a scrape's or a remote-write request's samples, by id in the producer's
   * `SeriesTable`): the owner worker comes from the label-set hash the table keeps, the ref from the table's
   * columns, and the refs the workers give are written back there. No object per sample or per series is
   * made; labels are decoded only for series sent by labels. Takes in the columns before returning.
   */
  appendColumns(c: SampleColumns): Promise<AppendSummary> {
    const n = this.pool.size, table = c.table, count = c.n, sids = c.sids;
    const call = ++this.calls;
    if (this.entryCall.length < table.size) { this.entryCall = new Int32Array(table.size * 2); this.entryOf = new Int32Array(table.size * 2); }
    if (this.workerOf.length < count) this.workerOf = new Int32Array(count * 2);
    const entryCall = this.entryCall, entryOf = this.entryOf, workerOf = this.workerOf;
    const counts = new Array<number>(n).fill(0);
    for (let i = 0; i < count; i++) { const w = (table.hash(sids[i]) >>> 0) % n; workerOf[i] = w; counts[w]++; }
    const groups: (Group | undefined)[] = new Array(n);
    const distinct: Int32Array[] = new Array(n), m = new Array<number>(n).fill(0);
    for (let w = 0; w < n; w++) if (counts[w] > 0) { distinct[w] = new Int32Array(counts[w]); groups[w] = newGroup(new RouteEntries(), counts[w]); }
    for (let i = 0; i < count; i++) {
      const sid = sids[i], w = workerOf[i], g = groups[w]!;
      if (entryCall[sid] !== call) { entryCall[sid] = call; entryOf[sid] = m[w]; distinct[w][m[w]++] = sid; }
      const k = g.n++;
      g.sidx[k] = entryOf[sid]; g.ts[k] = c.ts[i]; g.vs[k] = c.vs[i];
    }
    for (let w = 0; w < n; w++) if (groups[w]) groups[w]!.entries = new TableEntries(table, distinct[w], m[w]);
    return this.sendGroups(groups);
  }

  /** Sends `count` samples whose routes are in `this.routed` and times and values in `ts`/`vs`, grouped by worker. */
  private async appendRouted(count: number, ts: Float64Array, vs: Float64Array): Promise<AppendSummary> {
    const n = this.pool.size;
    const call = ++this.calls;
    // Two passes: count per worker, then fill columns of exactly that size (sent without a copy).
    const routed = this.routed;
    const counts = new Array<number>(n).fill(0);
    for (let i = 0; i < count; i++) counts[routed[i].w]++;
    const groups: (Group | undefined)[] = new Array(n);
    for (let w = 0; w < n; w++) if (counts[w] > 0) groups[w] = newGroup(new RouteEntries(), counts[w]);
    for (let i = 0; i < count; i++) {
      const r = routed[i];
      const g = groups[r.w]!, routes = (g.entries as RouteEntries).routes;
      if (r.call !== call) { r.call = call; r.slot = routes.length; routes.push(r); }
      const k = g.n++;
      g.sidx[k] = r.slot; g.ts[k] = ts[i]; g.vs[k] = vs[i];
    }
    return this.sendGroups(groups);
  }

  /** Sends each worker's group (their labels or refs are read before this returns); the summed summary. */
  private async sendGroups(groups: (Group | undefined)[]): Promise<AppendSummary> {
    const n = groups.length;
    const calls: Promise<AppendSummary>[] = [];
    for (let w = 0; w < n; w++) if (groups[w]) calls.push(this.appendGroup(w, groups[w]!, true));
    const sum: AppendSummary = { added: 0, outOfOrder: 0, duplicate: 0, outOfBounds: 0, firstError: '' };
    for (const r of await Promise.all(calls)) addSummary(sum, r);
    return sum;
  }

  /**
   * Sends one worker's share: series the worker already numbered go as refs (no label strings cross the
   * thread boundary), others with their labels. Entries whose ref went stale (series dropped at a block
   * cut, worker restarted) come back in `unknown` and are resent once with labels.
   */
  private async appendGroup(w: number, g: Group, useRefs: boolean): Promise<AppendSummary> {
    const e = g.entries, m = e.length;
    const epoch = this.epochs[w] ?? 0;
    const series: string[][] = [];
    const refs = new Float64Array(m);
    for (let j = 0; j < m; j++) {
      const ref = useRefs ? e.ref(j, w, epoch) : 0;
      if (ref > 0) refs[j] = ref; else series.push(e.flat(j));
    }
    // The columns are transferred to the worker (not copied through the encoder): `g` is unusable after this.
    const args: AppendArgs = {
      series, refs: outOfBand(refs), epoch,
      sidx: outOfBand(g.sidx.subarray(0, g.n)), ts: outOfBand(g.ts.subarray(0, g.n)), vs: outOfBand(g.vs.subarray(0, g.n)),
    };
    const reply = await this.pool.call(w, 'tsdb.append', args);
    this.epochs[w] = reply.epoch;
    const got = reply.refs;
    if (got) for (let j = 0; j < m; j++) if (got[j] > 0) e.setRef(j, got[j], w, reply.epoch);
    const unknown = reply.unknown;
    if (!unknown?.length || !useRefs) return reply;
    // Rare (a ref went stale): resend just the unknown entries' samples (the worker gave them back), with labels.
    const resend = reply.resend!;
    const retry = newGroup(e.subset(unknown), resend.sidx.length);
    const entryOf = new Map<number, number>();
    for (let k = 0; k < unknown.length; k++) { const j = unknown[k]; e.clearRef(j); entryOf.set(j, k); }
    for (let k = 0; k < resend.sidx.length; k++) {
      const q = retry.n++;
      retry.sidx[q] = entryOf.get(resend.sidx[k])!; retry.ts[q] = resend.ts[k]; retry.vs[q] = resend.vs[k];
    }
    const again = await this.appendGroup(w, retry, false);
    const sum: AppendSummary = { added: 0, outOfOrder: 0, duplicate: 0, outOfBounds: 0, firstError: '' };
    addSummary(sum, reply);
    addSummary(sum, again);
    return sum;
  }

  /**
   * Owner (and ref, once known) of a label set. A producer that appends the same label arrays again and
   * again (a scrape loop) freezes them, and their routing is cached by identity: the steady state does no
   * sorting, joining or hashing on the main thread. Other arrays (remote write decodes fresh ones for every
   * request) are routed each time, without filling the cache with entries that are never hit.
   */
  private route(ls: SampleIn['labels'], n: number): Route {
    const cacheable = Array.isArray(ls) && Object.isFrozen(ls);
    if (cacheable) {
      const hit = this.routes.get(ls as object);
      if (hit !== undefined && hit.n === n) return hit;
    }
    const flat = labelsToFlat(toSortedLabels(ls));
    const r: Route = { src: ls, flat, w: shardOfSeries(flat, n), n, ref: 0, epoch: 0, call: 0, slot: 0 };
    if (cacheable) this.routes.set(ls as object, r);
    return r;
  }

  /** Series matching `matchers` with their samples in `[mintMs, maxtMs]`, sorted by labels. */
  async select(matchers: readonly MatcherLike[], mintMs: number, maxtMs: number): Promise<FetchedSeries[]> {
    const args: SelectArgs = { matchers: wire(matchers), mint: mintMs, maxt: maxtMs };
    const replies = await this.all('tsdb.select', args);
    const byKey = new Map<string, FetchedSeries[]>();
    for (const r of replies) {
      for (let i = 0; i < r.labels.length; i++) {
        const key = labelsKeyOfFlat(r.labels[i]);
        const s: FetchedSeries = { labels: toLabels(r.labels[i]), t: r.t.subarray(r.offsets[i], r.offsets[i + 1]), v: r.v.subarray(r.offsets[i], r.offsets[i + 1]) };
        const list = byKey.get(key);
        if (list) list.push(s); else byKey.set(key, [s]);
      }
    }
    const out: FetchedSeries[] = [];
    for (const list of byKey.values()) out.push(list.length === 1 ? list[0] : mergeSamples(list));
    return out.sort((a, b) => compareLabels(a.labels, b.labels));
  }

  /** Each worker's reply for the query path, undecoded (see `mergeSelected` for how they combine). */
  selectPacked(matchers: readonly MatcherLike[], mintMs: number, maxtMs: number, deadlineMs?: number, signal?: AbortSignal): Promise<PackedSelect[]> {
    const args: SelectArgs = { matchers: wire(matchers), mint: mintMs, maxt: maxtMs, deadlineMs };
    return this.all('tsdb.selectPacked', args, signal);
  }

  async labelNames(selectors: readonly (readonly MatcherLike[])[], mintMs = -Infinity, maxtMs = Infinity): Promise<string[]> {
    return sortedUnion(await this.all('tsdb.labelNames', this.range(selectors, mintMs, maxtMs)));
  }

  async labelValues(name: string, selectors: readonly (readonly MatcherLike[])[], mintMs = -Infinity, maxtMs = Infinity): Promise<string[]> {
    return sortedUnion(await this.all('tsdb.labelValues', { ...this.range(selectors, mintMs, maxtMs), name }));
  }

  /** Label sets of the series matching any selector with data in range, de-duplicated and sorted. */
  async series(selectors: readonly (readonly MatcherLike[])[], mintMs = -Infinity, maxtMs = Infinity): Promise<Labels[]> {
    return (await this.seriesFlat(selectors, mintMs, maxtMs)).map(toLabels);
  }

  /** `series` in the flat `[name, value, …]` form: the workers' sorted lists merged, no label objects. */
  async seriesFlat(selectors: readonly (readonly MatcherLike[])[], mintMs = -Infinity, maxtMs = Infinity): Promise<string[][]> {
    return sortedUnionBy(await this.all('tsdb.series', this.range(selectors, mintMs, maxtMs)), compareFlatLabels);
  }

  /** Tombstones in every worker (worker 0 writes the shared blocks' tombstones, the others apply them in memory). */
  deleteSeries(selectors: readonly (readonly MatcherLike[])[], mintMs = -Infinity, maxtMs = Infinity): Promise<void> {
    return this.serially(async () => { await this.all('tsdb.deleteSeries', this.range(selectors, mintMs, maxtMs)); });
  }

  cleanTombstones(): Promise<void> {
    return this.serially(async () => {
      await this.all('tsdb.cleanTombstones', null);
      await this.reloadAll();
    });
  }

  /** Every shard writes its blocks (and head) into `dir`; then one worker merges each range's parts into one block. */
  snapshot(dir: string, withHead: boolean): Promise<void> {
    return this.serially(async () => {
      await this.all('tsdb.snapshot', { dir, withHead });
      await this.pool.call(0, 'tsdb.mergeSnapshot', { dir });
    });
  }

  status(): Promise<ShardStatus[]> { return this.all('tsdb.status', null); }

  figures(): Promise<ShardFigures[]> { return this.all('tsdb.figures', null); }

  walReplay(): Promise<WalReplayStatus[]> { return this.all('tsdb.walReplay', null); }

  /**
   * Every worker cuts its head into parts; then worker 0 merges the parts into the shared blocks (one per
   * range), compacts them and applies retention (with the retention settings given); then every worker reloads
   * its blocks. One result list per worker; worker 0's ends with the shared maintenance.
   */
  tick(retention: Partial<TsdbOpenArgs> | null = null): Promise<unknown[]> {
    return this.serially(async () => {
      const perWorker = await this.all('tsdb.tick', retention);
      const shared = await this.pool.call(0, 'tsdb.maintainShared', retention);
      await this.reloadAll();
      perWorker[0] = [...perWorker[0], shared];
      return perWorker;
    });
  }

  /** Makes every shard pick up block directories written since it opened (e.g. by an import). */
  reloadBlocks(): Promise<void> { return this.serially(() => this.reloadAll()); }

  /**
   * Runs the operations that change the set of blocks one at a time: worker 0 deletes blocks other workers
   * serve (merged parts, compaction inputs), so a snapshot, a delete or a reload must not see a merge halfway
   * between workers.
   */
  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.maintenance.then(fn, fn);
    this.maintenance = p.catch(() => {});
    return p;
  }

  async close(): Promise<void> { await this.all('tsdb.close', null); }

  private range(selectors: readonly (readonly MatcherLike[])[], mint: number, maxt: number): SelectorRangeArgs {
    return { selectors: selectors.map(wire), mint, maxt };
  }

  private all<K extends OpName>(op: K, args: OpArgs<K>, signal?: AbortSignal): Promise<OpResult<K>[]> {
    const out: Promise<OpResult<K>>[] = [];
    for (let w = 0; w < this.pool.size; w++) out.push(this.pool.call(w, op, args, signal));
    return Promise.all(out);
  }
}


