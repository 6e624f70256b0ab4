/**
 * The document shards one shard worker has open: opening each once (concurrent first calls share the open, or
 * two instances would write the same translog), following mapping updates, scheduled refreshes and
 * size-triggered flushes, and failing a shard whose files are damaged.
 *
 * A damaged shard (a corruption or format error at open or on any read, including a background merge) is
 * closed and *failed*: every later call for it gets `DOC_SHARD_FAILED` naming the original file and offset,
 * searches report it as a failed shard, and cluster health turns red. The failure is recorded in the shard
 * directory (`DOC_SHARD_FAILED_MARKER`, as Elasticsearch's `corrupted_*` marker), so a restart does not serve
 * the shard again until an operator restores it (then deletes the marker) or deletes the index.
 *
 * A failed translog append (disk full, I/O error) is not damage: the operations of that batch were applied in
 * memory but refused, so the shard is dropped from memory at once — before any caller hears of the failure —
 * and the next call reopens it from disk (last commit + translog, which the WAL has put back to its durable
 * end), as Elasticsearch fails and recovers a shard whose translog failed. That is also how writes resume once
 * space is back; until the disk has gained space, writes to a shard a full disk refused are refused at once
 * (`diskFullRefusal`) rather than applied, failed and replayed again. While the translog's files cannot be put
 * back, calls get the append's error and retry.
 */
import { existsSync, readFileSync, statfsSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DOC_SHARD_FAILED_MARKER } from '../codec/format-ids.ts';
import { EngineError, formatMessage, fromWire, toWire, type WireError } from '../errors.ts';
import { IndexingMemory } from '../indexing/indexing-memory.ts';
import type { MappingJson } from '../search/api.ts';
import { BlockCache } from '../segments/block-cache.ts';
import type { DocShard } from './doc-shard.ts';
import { refreshIntervalMs, type FlatSettings } from './settings.ts';
import { StoredShard } from './shard-store.ts';

/** Free space a full disk must gain before a refused shard takes writes again (one batch's worth, with room). */
const DISK_FULL_RETRY_BYTES = 1 << 20;

/** Bytes available to this process on the file system of `path` (0 when it cannot be read). */
function freeBytes(path: string): number {
  try { const st = statfsSync(path); return st.bavail * st.bsize; } catch { return 0; }
}

/** What opening a shard needs to know of its index (sent by the coordinator with the mapping version). */
export interface ShardIndexMeta { name: string; type: string; mapping: MappingJson; mappingVersion: number; settings: FlatSettings }

export interface ShardRegistryOptions {
  dataDir: string;
  /** This worker's share of the segment cache and indexing buffer budgets, in bytes. */
  cacheBytes: number;
  indexBufferBytes: number;
  walRepair: boolean;
  onWarning: (msg: string) => void;
  onInfo: (msg: string) => void;
}

/** `dropped`: the shard was taken out of service after a translog failure (its instance is closing). */
export interface OpenShard { stored: StoredShard; mv: number; refreshMs: number | null; lastRefresh: number; dropped: boolean }

/** A shard being closed after a translog failure; `done` resolves false when its files are not put back yet. */
interface Closing { stored: StoredShard; cause: unknown; done: Promise<boolean> }

/** A shard's state for health and `_cat/shards`. */
export type ShardState = { state: 'STARTED' } | { state: 'FAILED'; error: WireError };

/** Translog bytes after which a shard flushes on its own (Elasticsearch's `index.translog.flush_threshold_size`). */
const FLUSH_TRANSLOG_BYTES = 64 * 1024 * 1024;

export class ShardRegistry {
  private readonly shards = new Map<string, OpenShard>();
  private readonly opening = new Map<string, Promise<OpenShard>>();
  private readonly failed = new Map<string, EngineError>();
  /**
   * Shards whose translog batch a full disk refused, with the error and the free bytes seen then. Writes to them
   * are refused with that error until the disk has gained DISK_FULL_RETRY_BYTES: applying one would fail its
   * batch again, dropping the shard and reopening it (a whole translog replay) for every write while the disk
   * stays full. Reads still reopen the shard once.
   */
  private readonly diskFull = new Map<string, { err: EngineError; freeBytes: number }>();
  private readonly closing = new Map<string, Closing>();
  readonly cache: BlockCache;
  readonly memory: IndexingMemory;

  constructor(private readonly o: ShardRegistryOptions) {
    this.cache = new BlockCache(o.cacheBytes);
    this.memory = new IndexingMemory(o.indexBufferBytes);
  }

  private dir(uuid: string, shard: number): string {
    return join(this.o.dataDir, 'es', 'indices', uuid, String(shard));
  }

  /** The open shard, or undefined. */
  get(uuid: string, shard: number): OpenShard | undefined {
    return this.shards.get(`${uuid}/${shard}`);
  }

  /**
   * The shard, opened (with `meta`) if needed and brought to mapping version `mv`; null when the caller must
   * send `meta` (not open yet, or its mapping is newer than the shard's). Throws for a failed shard.
   */
  async shard(uuid: string, shard: number, mv: number, meta: ShardIndexMeta | undefined): Promise<OpenShard | null> {
    this.tick();
    const key = `${uuid}/${shard}`;
    const failure = this.failed.get(key);
    if (failure) throw failure;
    const closing = this.closing.get(key);
    if (closing) await this.awaitClosed(key, closing);
    let cur = this.shards.get(key);
    if (!cur) {
      // No await between the lookups and `opening.set`: concurrent calls must share one open.
      let p = this.opening.get(key);
      if (!p) {
        if (!meta) return null;
        p = this.open(key, uuid, shard, meta);
        this.opening.set(key, p);
      }
      cur = await p;
    }
    const bg = cur.stored.shard.shardIndex.failure;
    if (bg) throw await this.fail(key, uuid, shard, meta?.name ?? cur.stored.shard.indexName, bg);
    if (cur.mv >= mv) return cur;
    if (!meta) return null;
    const s = cur.stored.shard;
    s.mapping = meta.mapping; s.type = meta.type; s.indexName = meta.name;
    cur.mv = meta.mappingVersion;
    cur.refreshMs = refreshIntervalMs(meta.settings);
    return cur;
  }

  private async open(key: string, uuid: string, shard: number, meta: ShardIndexMeta): Promise<OpenShard> {
    const dir = this.dir(uuid, shard);
    try {
      const marker = join(dir, DOC_SHARD_FAILED_MARKER);
      if (existsSync(marker)) throw fromWire(JSON.parse(readFileSync(marker, 'utf8')) as WireError);
      // Translog records are not compressed: like ES's translog, they are short-lived and snappy costs ~8% of a
      // worker's indexing time for a file that a flush deletes anyway.
      const stored = await StoredShard.open(dir, { indexName: meta.name, uuid, shard, type: meta.type, mapping: meta.mapping }, {
        cache: this.cache, memory: this.memory, indexSettings: nestedIndexSettings(meta.settings), walCompression: false,
        walRepair: this.o.walRepair, onWarning: this.o.onWarning, onInfo: this.o.onInfo,
        // Elasticsearch's `checksum` (and `true`, whose extra Lucene checks have no counterpart here).
        verifyOnOpen: ['checksum', 'true'].includes(String(meta.settings['index.shard.check_on_startup'] ?? 'false')),
        onTranslogFailure: (err) => this.dropAfterTranslogFailure(key, err),
      });
      const o: OpenShard = { stored, mv: meta.mappingVersion, refreshMs: refreshIntervalMs(meta.settings), lastRefresh: Date.now(), dropped: false };
      this.shards.set(key, o);
      return o;
    } catch (e) {
      throw await this.fail(key, uuid, shard, meta.name, e);
    } finally {
      this.opening.delete(key);
    }
  }

  /**
   * Takes the shard out of service synchronously (the WAL calls this before the batch's appends reject), so
   * no later call reads what the refused operations left in memory; closing runs in the background.
   */
  private dropAfterTranslogFailure(key: string, err: unknown): void {
    const o = this.shards.get(key);
    if (!o) return;
    if (err instanceof EngineError && err.code === 'DISK_FULL') this.diskFull.set(key, { err, freeBytes: freeBytes(o.stored.dir) });
    this.shards.delete(key);
    o.dropped = true;
    this.o.onWarning(`shard [${o.stored.shard.indexName}][${o.stored.shard.shard}]: translog write failed (${(err as Error).message}); reopening the shard from disk`);
    this.startClosing(key, o.stored, err);
  }

  private startClosing(key: string, stored: StoredShard, cause: unknown): void {
    const done = stored.close().then(() => {
      if (this.closing.get(key)?.done === done) this.closing.delete(key);
      return true;
    }, (e: unknown) => {
      this.o.onWarning(`shard ${stored.dir}: putting back the translog failed (${(e as Error).message}); retrying on the next call`);
      return false;
    });
    this.closing.set(key, { stored, cause, done });
  }

  /** Waits for a dropped shard to close; when its translog is still not put back, retries and throws `cause`. */
  private async awaitClosed(key: string, c: Closing): Promise<void> {
    if (await c.done) return;
    if (this.closing.get(key) === c) this.startClosing(key, c.stored, c.cause);
    throw c.cause;
  }

  /** The error to refuse a write to this shard with while the disk that refused its translog is still full, or null. */
  diskFullRefusal(uuid: string, shard: number): EngineError | null {
    const key = `${uuid}/${shard}`;
    const d = this.diskFull.get(key);
    if (d === undefined) return null;
    if (freeBytes(this.dir(uuid, shard)) < d.freeBytes + DISK_FULL_RETRY_BYTES) return d.err;
    this.diskFull.delete(key);
    return null;
  }

  /**
   * Runs `fn` on an open shard; a corruption or format error fails the shard (the error is rethrown as the
   * shard failure). Other errors pass through.
   */
  async guard<T>(o: OpenShard, fn: () => T | Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (!isDamage(e)) throw e;
      const s = o.stored.shard;
      throw await this.fail(`${s.uuid}/${s.shard}`, s.uuid, s.shard, s.indexName, e);
    }
  }

  /** Records `cause` as the shard's failure (damage is persisted in the marker) and returns the error to throw. */
  private async fail(key: string, uuid: string, shard: number, indexName: string, cause: unknown): Promise<EngineError> {
    const existing = this.failed.get(key);
    if (existing) return existing;
    if (!isDamage(cause) && !(cause instanceof EngineError && cause.code === 'DOC_SHARD_FAILED')) return cause as EngineError;
    const inner = cause as EngineError;
    const err = inner.code === 'DOC_SHARD_FAILED' ? inner : new EngineError('DOC_SHARD_FAILED', formatMessage('DOC_SHARD_FAILED', [indexName, shard, inner.message]), {
      index: indexName, shard, cause: toWire(inner),
    });
    this.failed.set(key, err);
    const open = this.shards.get(key);
    this.shards.delete(key);
    if (open) await open.stored.close().catch(() => undefined);
    const marker = join(this.dir(uuid, shard), DOC_SHARD_FAILED_MARKER);
    try {
      if (!existsSync(marker)) writeFileSync(marker, JSON.stringify(toWire(err)));
    } catch { /* the directory itself may be gone; the failure still stands in memory */ }
    this.o.onWarning(`${err.message}; the shard is failed: restore it and delete ${marker}, or delete the index`);
    return err;
  }

  /** Open (or failed) state of a shard, opening it if needed. */
  async state(uuid: string, shard: number, mv: number, meta: ShardIndexMeta | undefined): Promise<ShardState | null> {
    try {
      return (await this.shard(uuid, shard, mv, meta)) ? { state: 'STARTED' } : null;
    } catch (e) {
      const f = this.failed.get(`${uuid}/${shard}`);
      if (f) return { state: 'FAILED', error: toWire(f) };
      throw e;
    }
  }

  /** Scheduled refreshes and size-triggered flushes of every open shard that is due. */
  tick(): void {
    const now = Date.now();
    for (const o of this.shards.values()) {
      const s: DocShard = o.stored.shard;
      // Merged segments are published by the scheduled refresh too, so searches move off the merged inputs.
      const due = s.dirty || s.shardIndex.mergedSinceRefresh;
      if (due && o.refreshMs !== null && now - o.lastRefresh >= o.refreshMs) {
        try { s.refresh(); } catch { /* a failed index reports on the next call */ }
        o.lastRefresh = now;
      }
      // An idle shard whose merges are done and published commits them: its last commit still names the merged
      // inputs, whose files would otherwise stay beside the merged segment — up to twice the shard on disk —
      // until some later write fills the translog.
      const idleMerged = s.translogOps === 0 && !s.dirty && s.shardIndex.mergedSinceCommit && !s.shardIndex.mergedSinceRefresh && !s.shardIndex.merging;
      if (s.translogBytes > FLUSH_TRANSLOG_BYTES || idleMerged) void o.stored.flush().catch((e) => this.o.onWarning(`flush failed: ${(e as Error).message}`));
    }
  }

  /** Closes and deletes every shard of index `uuid` (index deletion); failures go with it. */
  async drop(uuid: string): Promise<void> {
    for (const [key, o] of [...this.shards]) {
      if (!key.startsWith(`${uuid}/`)) continue;
      this.shards.delete(key);
      await o.stored.destroy();
    }
    for (const key of [...this.failed.keys()]) if (key.startsWith(`${uuid}/`)) this.failed.delete(key);
    for (const key of [...this.diskFull.keys()]) if (key.startsWith(`${uuid}/`)) this.diskFull.delete(key);
    for (const [key, c] of [...this.closing]) {
      if (!key.startsWith(`${uuid}/`)) continue;
      this.closing.delete(key);
      await c.done;
    }
    await rm(join(this.o.dataDir, 'es', 'indices', uuid), { recursive: true, force: true });
  }

  /** Empties the worker's block cache (`_cache/clear`). */
  clearCache(): void {
    this.cache.clear();
  }

  /** Flushes and closes the open shards of index `uuid`, keeping their files (`_close`). */
  async closeIndex(uuid: string): Promise<void> {
    for (const [key, o] of [...this.shards]) {
      if (!key.startsWith(`${uuid}/`)) continue;
      this.shards.delete(key);
      await o.stored.flush();
      await o.stored.close();
    }
  }

  /** Flushes and closes every open shard (clean shutdown). */
  async closeAll(): Promise<void> {
    for (const [key, o] of [...this.shards]) {
      this.shards.delete(key);
      await o.stored.flush().catch((e) => this.o.onWarning(`flush at close failed: ${(e as Error).message}`));
      await o.stored.close();
    }
  }

  /** The worker's segment cache and indexing buffer use. */
  budgetUse(): { cacheBytes: number; cacheHits: number; cacheMisses: number; indexBufferBytes: number } {
    const c = this.cache.stats();
    return { cacheBytes: c.bytes, cacheHits: c.hits, cacheMisses: c.misses, indexBufferBytes: this.memory.usedBytes() };
  }
}

function isDamage(e: unknown): e is EngineError {
  return e instanceof EngineError && (e.code === 'CORRUPTION' || e.code === 'FORMAT_VERSION');
}

/** Flat `index.*` settings as the nested JSON analyzers read. */
function nestedIndexSettings(flat: FlatSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(flat)) {
    const parts = k.replace(/^index\./, '').split('.');
    let node = out;
    for (let i = 0; i < parts.length - 1; i++) node = (node[parts[i]] ??= {}) as Record<string, unknown>;
    node[parts[parts.length - 1]] = v;
  }
  return out;
}
