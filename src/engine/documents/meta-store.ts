/**
 * Persistence of the documents cluster state in LMDB (docs/format.md "Documents metadata"): one key per
 * index and per template, and the persistent cluster settings; a state change writes every changed key in one transaction before the main
 * thread swaps the new state in.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CorruptionError } from '../errors.ts';
import { Store, type StoreDb, type StoreOpenOptions } from '../store/lmdb.ts';
import { DOC_META_CLUSTER_DB, DOC_META_INDICES_DB, DOC_META_TEMPLATES_DB, STORE_DIR_NAME } from '../codec/format-ids.ts';
import type { ClusterState, IndexMeta, TemplateMeta } from './cluster-state.ts';

/** The key of the persistent cluster settings (a flat map) in the cluster database. */
const PERSISTENT_SETTINGS_KEY = 'persistent_settings';
/** Keys of ingest pipeline definitions in the cluster database: the prefix, then the pipeline id. */
const PIPELINE_KEY_PREFIX = 'pipeline:';

export class MetaStore {
  private readonly store: Store;
  private readonly indices: StoreDb<IndexMeta>;
  private readonly templates: StoreDb<TemplateMeta>;
  private readonly cluster: StoreDb<unknown>;

  private constructor(store: Store) {
    this.store = store;
    this.indices = store.db<IndexMeta>(DOC_META_INDICES_DB);
    this.templates = store.db<TemplateMeta>(DOC_META_TEMPLATES_DB);
    this.cluster = store.db<unknown>(DOC_META_CLUSTER_DB);
  }

  /**
   * Opens the metadata store. A new (empty) store beside index directories means the metadata was lost (a deleted
   * `data.mdb`): starting would show no indices and orphan their data, so it is refused with what to do.
   */
  static open(dataDir: string, opts: StoreOpenOptions = {}): MetaStore {
    const store = Store.open(join(dataDir, STORE_DIR_NAME), opts);
    const indicesDir = join(dataDir, 'es', 'indices');
    const orphans = store.created && existsSync(indicesDir) ? readdirSync(indicesDir).length : 0;
    if (orphans > 0) {
      void store.close().catch(() => undefined);
      rmSync(join(dataDir, STORE_DIR_NAME, 'data.mdb'), { force: true });
      throw new CorruptionError(join(dataDir, STORE_DIR_NAME, 'data.mdb'), 0,
        `the documents metadata store is missing while ${indicesDir} holds ${orphans} index director${orphans === 1 ? 'y' : 'ies'}: restore data.mdb from a backup, or move ${indicesDir} away to start without those indices`);
    }
    return new MetaStore(store);
  }

  load(): ClusterState {
    const indices: Record<string, IndexMeta> = {};
    const templates: Record<string, TemplateMeta> = {};
    for (const { key, value } of this.indices.getRange()) indices[String(key)] = value;
    for (const { key, value } of this.templates.getRange()) templates[String(key)] = value;
    const persistentSettings = (this.cluster.get(PERSISTENT_SETTINGS_KEY) ?? {}) as Record<string, string>;
    const pipelines: Record<string, unknown> = {};
    for (const { key, value } of this.cluster.getRange()) {
      const k = String(key);
      if (k.startsWith(PIPELINE_KEY_PREFIX)) pipelines[k.slice(PIPELINE_KEY_PREFIX.length)] = value;
    }
    return { version: 1, indices, templates, persistentSettings, transientSettings: {}, pipelines };
  }

  /** Writes the difference between two states atomically; resolves once durable. */
  save(prev: ClusterState, next: ClusterState): Promise<void> {
    return this.store.transaction(() => {
      diff(prev.indices, next.indices, this.indices);
      diff(prev.templates, next.templates, this.templates);
      if (prev.persistentSettings !== next.persistentSettings) this.cluster.putSync(PERSISTENT_SETTINGS_KEY, { ...next.persistentSettings });
      if (prev.pipelines !== next.pipelines) {
        for (const id of Object.keys(prev.pipelines)) if (!(id in next.pipelines)) this.cluster.removeSync(PIPELINE_KEY_PREFIX + id);
        for (const [id, body] of Object.entries(next.pipelines)) if (prev.pipelines[id] !== body) this.cluster.putSync(PIPELINE_KEY_PREFIX + id, body);
      }
    });
  }

  /** Calls `fn` when LMDB's background consistency read finds the store damaged (lmdb.ts `onDamage`). */
  onDamage(fn: (err: CorruptionError) => void): void {
    this.store.onDamage(fn);
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

function diff<V>(a: Readonly<Record<string, V>>, b: Readonly<Record<string, V>>, db: StoreDb<V>): void {
  for (const k of Object.keys(a)) if (!(k in b)) db.removeSync(k);
  for (const k of Object.keys(b)) if (a[k] !== b[k]) db.putSync(k, b[k]);
}
