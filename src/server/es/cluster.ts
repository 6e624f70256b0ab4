/**
 * The main thread's view of the documents cluster: the metadata state (owned here, persisted atomically
 * before it is swapped in), index-expression resolution for reads and writes, shard → worker placement,
 * and shard calls (with the stale-metadata retry and the dynamic-mapping round trip).
 */
import { ThreadPools } from './thread-pools.ts';
import type { FetchBoardSlots } from '../../engine/search/index.ts';
import { checkIndexWriteBlock } from './index-blocks.ts';
import type { MappingJson } from '../../engine/search/api.ts';
import type { ServerContext } from '../context.ts';
import { EngineError, formatMessage, toWire } from '../../engine/errors.ts';
import { EMPTY_STATE, type ClusterState, type IndexMeta } from '../../engine/documents/cluster-state.ts';
import { resolveRead, resolveWrite, type ResolveOptions } from '../../engine/documents/resolve.ts';
import { buildIndex } from '../../engine/documents/index-create.ts';
import { countFields, mergeMapping } from '../../engine/documents/mapping.ts';
import { docError, illegalArgument } from '../../engine/documents/doc-errors.ts';
import { applySettings, autoCreateAllowed, effectiveSetting } from '../../engine/documents/cluster-settings.ts';
import { compilePipeline, type Pipeline } from '../../engine/documents/ingest/pipeline.ts';
import { resolveDateMathName } from '../../engine/documents/date-math-names.ts';
import { numberOfShards, type FlatSettings } from '../../engine/documents/settings.ts';
import { murmur3Utf16 } from '../../engine/documents/routing.ts';
import { newWriteOutcomes, OUTCOME_OTHER, OUTCOME_PENDING, setOutcome, writeCount, writeItemAt } from '../../workers/protocol.ts';
import type { OpArgs, OpResult, ShardCall, ShardMeta, Stale, WriteBatch, WriteOutcomes } from '../../workers/protocol.ts';

/** Worker operations addressed to one shard: they take a `ShardCall` and may answer `Stale`. */
type ShardOp = 'docs.write' | 'docs.get' | 'docs.termvectors' | 'docs.refresh' | 'docs.flush' | 'docs.stats' | 'docs.state' | 'docs.segments' | 'docs.forceMerge' | 'search.query' | 'search.dfs' | 'search.fetch' | 'search.scroll' | 'search.clearScroll';
type ShardOpArgs<K extends ShardOp> = Omit<OpArgs<K>, keyof ShardCall>;
import { failedStats, type ShardStats, type StoredDoc } from '../../engine/documents/doc-shard-types.ts';

export interface ResolvedIndex {
  name: string;
  uuid: string;
  numberOfShards: number;
  mapping: MappingJson;
  settings: FlatSettings;
  aliasFilter: unknown | null;
  type: string | null;
  searchRouting?: string;
}

/** Persists state changes; `save` resolves once durable. */
export interface MetaPersistence {
  load(): ClusterState | null;
  save(prev: ClusterState, next: ClusterState): Promise<void>;
}

export class EsCluster {
  state: ClusterState = EMPTY_STATE;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly sent = new Map<string, number>();
  /** Shards the workers reported failed (damaged files), `uuid/shard` → the failure message. */
  private readonly failures = new Map<string, string>();
  /**
   * The damage found in the metadata store after start-up (LMDB's background consistency read), or null. The
   * index metadata every shard is served by came from that store, so every shard is then failed.
   */
  private metadataDamage: EngineError | null = null;

  constructor(readonly ctx: ServerContext, private readonly persistence: MetaPersistence) {}

  start(): void {
    this.state = this.persistence.load() ?? EMPTY_STATE;
  }

  /**
   * The metadata store was found damaged while the node served: from now on every shard is failed (red in
   * `_cluster/health`, UNASSIGNED in `_cat/shards`, its calls answered no_shard_available_action_exception
   * naming the file) and no cluster state change is written.
   */
  metadataFailed(err: EngineError): void {
    this.metadataDamage = err;
  }

  /** The failure every shard of `meta` reports once the metadata store was found damaged. */
  private metadataShardFailure(meta: IndexMeta, shard: number): EngineError {
    const d = this.metadataDamage!;
    return new EngineError('DOC_SHARD_FAILED', formatMessage('DOC_SHARD_FAILED', [meta.name, shard, d.message]), { index: meta.name, shard, cause: toWire(d) });
  }

  /** Runs `fn` on the current state after earlier changes; persists and swaps in its result. */
  mutate<T = void>(fn: (s: ClusterState) => { state: ClusterState; value?: T }): Promise<T> {
    const run = async (): Promise<T> => {
      if (this.metadataDamage) throw this.metadataDamage;
      const prev = this.state;
      const { state, value } = fn(prev);
      if (state !== prev) {
        await this.persistence.save(prev, state);
        this.state = state;
      }
      return value as T;
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  resolveForRead(expression: string | undefined, opts: ResolveOptions = {}): ResolvedIndex[] {
    if (expression?.includes('<')) expression = expression.split(',').map((p) => resolveDateMathName(p, this.ctx.now())).join(',');
    return resolveRead(this.state, expression, opts).map((r) => ({
      name: r.index.name, uuid: r.index.uuid, numberOfShards: numberOfShards(r.index.settings), mapping: r.index.mapping,
      settings: r.index.settings, aliasFilter: r.aliasFilter, type: r.index.type, searchRouting: r.searchRouting,
    }));
  }

  indexByUuid(uuid: string): IndexMeta | undefined {
    for (const n in this.state.indices) if (this.state.indices[n].uuid === uuid) return this.state.indices[n];
    return undefined;
  }

  shardWorker(uuid: string, shard: number): number {
    return ((murmur3Utf16(uuid) >>> 0) + shard) % this.ctx.pool.size;
  }

  /** Compiled ingest pipelines, by id, with the definition they were compiled from. */
  private readonly compiledPipelines = new Map<string, { body: unknown; pipeline: Pipeline }>();

  /** The stored ingest pipeline `id`, compiled (once per definition). */
  pipeline(id: string): Pipeline | undefined {
    const body = this.state.pipelines[id];
    if (body === undefined) return undefined;
    const hit = this.compiledPipelines.get(id);
    if (hit && hit.body === body) return hit.pipeline;
    const pipeline = compilePipeline(id, body);
    this.compiledPipelines.set(id, { body, pipeline });
    return pipeline;
  }

  /** Stores a pipeline definition after compiling it (a malformed one is refused and nothing changes). */
  putPipeline(id: string, body: unknown): Promise<void> {
    compilePipeline(id, body);
    return this.mutate((s) => ({ state: { ...s, version: s.version + 1, pipelines: { ...s.pipelines, [id]: body } } }));
  }

  deletePipelines(ids: string[]): Promise<void> {
    return this.mutate((s) => {
      const pipelines = { ...s.pipelines };
      for (const id of ids) delete pipelines[id];
      return { state: { ...s, version: s.version + 1, pipelines } };
    });
  }

  /** The effective value of a cluster setting (transient over persistent over the default). */
  setting(key: string): string {
    return effectiveSetting(key, this.state.persistentSettings, this.state.transientSettings);
  }

  /**
   * Throws ES's cluster_block_exception when a `cluster.blocks.*` setting forbids writes: `read_only` blocks
   * every write, `read_only_allow_delete` every write but deleting indices.
   */
  checkWriteBlock(deletingIndex = false): void {
    if (this.setting('cluster.blocks.read_only') === 'true') throw docError('DOC_CLUSTER_BLOCK', ['FORBIDDEN/6/cluster read-only (api)']);
    if (!deletingIndex && this.setting('cluster.blocks.read_only_allow_delete') === 'true') {
      throw docError('DOC_CLUSTER_BLOCK', ['FORBIDDEN/13/cluster read-only / allow delete (api)']);
    }
  }

  /** Applies a `PUT /_cluster/settings` (already validated); persistent settings are stored first. */
  updateSettings(persistent: Record<string, string | null>, transient: Record<string, string | null>): Promise<void> {
    return this.mutate((s) => ({
      state: { ...s, version: s.version + 1,
        persistentSettings: Object.keys(persistent).length ? applySettings(s.persistentSettings, persistent) : s.persistentSettings,
        transientSettings: applySettings(s.transientSettings, transient) },
    }));
  }

  /** The write target of `name` (index or alias with a write index), auto-creating a missing index for `type`. */
  async writeTarget(name: string, type: string, autoCreate = true): Promise<{ meta: IndexMeta | null; routing?: string }> {
    this.checkWriteBlock();
    name = resolveDateMathName(name, this.ctx.now());
    let t = resolveWrite(this.state, name);
    if (!t.index) {
      if (!autoCreate) return { meta: null };
      if (!autoCreateAllowed(this.setting('action.auto_create_index'), name)) {
        throw docError('DOC_INDEX_NOT_FOUND', [], { 'resource.type': 'index_expression', 'resource.id': name, index_uuid: '_na_', index: name });
      }
      await this.createIndex(name, { mappings: { [type]: {} } }, false, true);
      t = resolveWrite(this.state, name);
    }
    let meta = t.index!;
    if (meta.type === null) {
      meta = await this.mutate((s) => {
        const cur = s.indices[meta.name];
        if (!cur || cur.type !== null) return { state: s, value: cur };
        const next = { ...cur, type, mappingVersion: cur.mappingVersion + 1 };
        return { state: { ...s, version: s.version + 1, indices: { ...s.indices, [cur.name]: next } }, value: next };
      });
    }
    if (meta.type !== type) {
      throw illegalArgument(`Rejecting mapping update to [${meta.name}] as the final mapping would have more than 1 type: [${meta.type}, ${type}]`);
    }
    checkIndexWriteBlock(meta);
    return { meta, routing: t.routing };
  }

  /** Creates an index (explicit or automatic); `exists` errors are ignored for automatic creation. */
  createIndex(name: string, body: Record<string, unknown> | null, typeless: boolean, auto = false): Promise<IndexMeta> {
    this.checkWriteBlock();
    name = resolveDateMathName(name, this.ctx.now());
    return this.mutate((s) => {
      if (auto && s.indices[name]) return { state: s, value: s.indices[name] };
      const meta = buildIndex(s, name, body, { typeless, now: this.ctx.now() });
      return { state: { ...s, version: s.version + 1, indices: { ...s.indices, [name]: meta } }, value: meta };
    });
  }

  /** Merges a dynamic mapping update into index `name`; returns the new metadata. */
  applyMapping(name: string, uuid: string, delta: MappingJson): Promise<IndexMeta> {
    return this.mutate((s) => {
      const cur = s.indices[name];
      if (!cur || cur.uuid !== uuid) throw illegalArgument(`index [${name}] was deleted during the write`);
      const mapping = mergeMapping(cur.mapping, delta);
      const limit = Number(cur.settings['index.mapping.total_fields.limit'] ?? 1000);
      if (countFields(mapping) > limit) throw illegalArgument(`Limit of total fields [${limit}] in index [${name}] has been exceeded`);
      const next = { ...cur, mapping, mappingVersion: cur.mappingVersion + 1 };
      return { state: { ...s, version: s.version + 1, indices: { ...s.indices, [name]: next } }, value: next };
    });
  }

  private shardMeta(m: IndexMeta): ShardMeta {
    return { name: m.name, type: m.type ?? '_doc', mapping: m.mapping, mappingVersion: m.mappingVersion, settings: m.settings };
  }

  /**
   * Calls `op` on the worker owning the shard, sending metadata when the worker may lack it; a read given
   * `signal` stops in the worker once it aborts (its client went away).
   */
  async shardCall<K extends ShardOp>(meta: IndexMeta, shard: number, op: K, args: ShardOpArgs<K>, signal?: AbortSignal): Promise<Exclude<OpResult<K>, Stale>> {
    if (this.metadataDamage) throw this.metadataShardFailure(meta, shard);
    const w = this.shardWorker(meta.uuid, shard);
    const key = `${w}/${meta.uuid}`;
    const base = { ...args, uuid: meta.uuid, shard, mv: meta.mappingVersion } as OpArgs<K>;
    const withMeta = this.sent.get(key) !== meta.mappingVersion;
    const pool = this.threadPools.begin(op);
    let rejected = false;
    try {
      let r = await this.ctx.pool.call(w, op, withMeta ? { ...base, meta: this.shardMeta(meta) } : base, signal).catch((e: unknown) => {
        const code = (e as { code?: string }).code;
        if (code === 'DOC_SHARD_FAILED') this.failures.set(`${meta.uuid}/${shard}`, (e as Error).message);
        rejected = code === 'OVERLOADED';
        throw e;
      });
      if (withMeta) this.sent.set(key, meta.mappingVersion);
      if (isStale(r)) {
        r = await this.ctx.pool.call(w, op, { ...base, meta: this.shardMeta(meta) }, signal);
        this.sent.set(key, meta.mappingVersion);
      }
      return r as Exclude<OpResult<K>, Stale>;
    } finally {
      this.threadPools.end(pool, rejected);
    }
  }

  /** Slots of the workers' fetch board (null without one: every shard then fetches all its top hits). */
  get fetchBoard(): FetchBoardSlots | null { return this.ctx.pool.fetchBoard ?? null; }

  private pools: ThreadPools | null = null;
  /** The ES thread pools' figures, counted per shard call (thread-pools.ts). */
  get threadPools(): ThreadPools {
    this.pools ??= new ThreadPools(this.ctx.pool.size);
    return this.pools;
  }

  /** Writes items to one shard, applying dynamic mapping updates between rounds. Outcomes in item order. */
  async writeShard(meta: IndexMeta, shard: number, items: WriteBatch, refresh?: 'true' | 'wait_for'): Promise<WriteOutcomes> {
    this.checkWriteBlock();
    const first = await this.shardCall(meta, shard, 'docs.write', { items, refresh });
    if (first.otherAt.length === 0) return first; // the common batch: every item ran and has a plain result
    const n = writeCount(items);
    const out = newWriteOutcomes(n);
    let idx = Array.from({ length: n }, (_, i) => i);
    let m = meta;
    let res = first;
    for (;;) {
      const next: number[] = [];
      for (let j = 0, k = 0; j < idx.length; j++) {
        const c = res.code[j], i = idx[j];
        if (c === OUTCOME_PENDING) { next.push(i); continue; }
        if (c !== OUTCOME_OTHER) {
          out.code[i] = c; out.version[i] = res.version[j]; out.seqNo[i] = res.seqNo[j]; out.primaryTerm[i] = res.primaryTerm[j];
          continue;
        }
        const r = res.others[k++];
        if ('mappingUpdate' in r) {
          try {
            m = await this.applyMapping(m.name, m.uuid, r.mappingUpdate);
            next.push(i);
          } catch (e) {
            setOutcome(out, i, { err: { code: (e as { code?: string }).code ?? 'INTERNAL', message: (e as Error).message, details: (e as { details?: Record<string, unknown> }).details ?? {}, category: 'InvalidArgumentError' } });
          }
          continue;
        }
        setOutcome(out, i, r);
      }
      if (next.length === 0) break;
      idx = next;
      res = await this.shardCall(m, shard, 'docs.write', { items: idx.map((i) => writeItemAt(items, i)), refresh });
    }
    return out; // items come back in ascending order, so `otherAt` stays ascending
  }

  getDoc(meta: IndexMeta, shard: number, id: string): Promise<StoredDoc | null> {
    return this.shardCall(meta, shard, 'docs.get', { id }).then((r) => r.doc);
  }

  /** Runs a per-shard op (`docs.refresh`/`flush`/`stats`) over every shard of `metas`; results per index. */
  async allShards<K extends 'docs.refresh' | 'docs.flush' | 'docs.stats' | 'docs.state' | 'docs.segments' | 'docs.forceMerge', T = Exclude<OpResult<K>, Stale>[number]>(
    metas: IndexMeta[], op: K, extra: Omit<OpArgs<K>, 'keys'> = {} as Omit<OpArgs<K>, 'keys'>): Promise<Map<string, T[]>> {
    const out = new Map<string, T[]>();
    const calls: Promise<void>[] = [];
    for (const m of metas) {
      const n = numberOfShards(m.settings);
      const arr: T[] = new Array(n);
      out.set(m.name, arr);
      for (let s = 0; s < n; s++) {
        calls.push(this.shardCall(m, s, op, { ...extra, keys: [{ uuid: m.uuid, shard: s, mv: m.mappingVersion, meta: this.shardMeta(m) }] } as ShardOpArgs<K>)
          .then((r) => { arr[s] = (r as T[])[0]; }));
      }
    }
    await Promise.all(calls);
    return out;
  }

  /** Per-shard statistics (opening shards as needed); a failed shard reports zeros and its failure. */
  /** Shard statistics of the open indices among `metas` (closed ones have no open shards and are left out). */
  async stats(metas: IndexMeta[]): Promise<Map<string, ShardStats[]>> {
    metas = metas.filter((m) => !m.closed);
    if (this.metadataDamage) {
      return new Map(metas.map((m) => [m.name, Array.from({ length: numberOfShards(m.settings) }, (_, s) => failedStats(this.metadataShardFailure(m, s).message))]));
    }
    const out = await this.allShards(metas, 'docs.stats');
    for (const m of metas) {
      out.get(m.name)!.forEach((s, shard) => {
        if (s.failure !== undefined) this.failures.set(`${m.uuid}/${shard}`, s.failure);
        else this.failures.delete(`${m.uuid}/${shard}`);
      });
    }
    return out;
  }

  /** Why shard `shard` of `meta` failed, as last reported by its worker (undefined: it did not). */
  shardFailure(meta: IndexMeta, shard: number): string | undefined {
    return this.failures.get(`${meta.uuid}/${shard}`);
  }

  /** Shard numbers of `meta` that failed, as last reported by the workers (all of them once the metadata store is damaged). */
  failedShards(meta: IndexMeta): number[] {
    const out: number[] = [];
    for (let s = 0; s < numberOfShards(meta.settings); s++) if (this.metadataDamage || this.failures.has(`${meta.uuid}/${s}`)) out.push(s);
    return out;
  }

  /** Deletes indices from the state and their shard files from the workers. */
  /**
   * `_close` (flush, mark closed, close the shards; their files stay) or `_open` (mark open; shards open on
   * their next use) of `metas`.
   */
  async setClosed(metas: IndexMeta[], closed: boolean): Promise<void> {
    this.checkWriteBlock();
    const change = metas.filter((m) => (m.closed === true) !== closed);
    if (closed) await this.allShards(change, 'docs.flush');
    await this.mutate((s) => {
      const indices = { ...s.indices };
      for (const m of change) if (indices[m.name]) indices[m.name] = { ...indices[m.name], closed: closed || undefined };
      return { state: { ...s, version: s.version + 1, indices } };
    });
    if (closed) for (const m of change) await this.ctx.pool.broadcast('docs.closeIndex', { uuid: m.uuid });
  }

  async deleteIndices(names: string[]): Promise<void> {
    this.checkWriteBlock(true);
    const metas = names.map((n) => this.state.indices[n]).filter(Boolean);
    await this.mutate((s) => {
      const indices = { ...s.indices };
      for (const n of names) delete indices[n];
      return { state: { ...s, version: s.version + 1, indices } };
    });
    await this.dropShards(metas);
  }

  async dropShards(metas: IndexMeta[]): Promise<void> {
    for (const m of metas) {
      await this.ctx.pool.broadcast('docs.drop', { uuid: m.uuid });
      for (const k of [...this.sent.keys()]) if (k.endsWith(`/${m.uuid}`)) this.sent.delete(k);
    }
  }
}

function isStale(r: unknown): r is Stale {
  return typeof r === 'object' && r !== null && (r as { stale?: unknown }).stale === true;
}
