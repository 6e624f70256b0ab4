/**
 * Opening one engine partition of a data directory: its LMDB environment `workflow/p{n}`, a restart of an
 * interrupted layout-1 conversion, and the conversion itself on first open when layout-1 state exists in
 * the shared store (docs/format.md "Workflow state").
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { unpack } from '../codec/msgpack.ts';
import { STORE_DIR_NAME, WORKFLOW_DB_PREFIX, WORKFLOW_DIR, WORKFLOW_META_KEY } from '../codec/format-ids.ts';
import { Store } from '../store/lmdb.ts';
import { WorkflowEngine, type EngineOptions } from './engine.ts';
import { LmdbKv } from './lmdb-kv.ts';
import { WorkflowStore, type Meta } from './store.ts';
import { convertV1, hasV1, type V1Source } from './upgrade-v1.ts';

export interface PartitionOptions extends Omit<EngineOptions, 'kv'> {
  dataDir: string;
  partition: number;
  partitions: number;
  /** LMDB's start-up consistency read budget (`StoreOpenOptions.foregroundReadMs`; tests set 0). */
  lmdbForegroundReadMs?: number;
}

export const partitionDir = (dataDir: string, partition: number): string => join(dataDir, WORKFLOW_DIR, `p${partition}`);

/** Opens (converting layout 1 first when needed) and returns the engine of one partition. */
export async function openPartition(o: PartitionOptions): Promise<{ engine: WorkflowEngine; kv: LmdbKv; converted: number }> {
  const dir = partitionDir(o.dataDir, o.partition);
  const storeOpts = { foregroundReadMs: o.lmdbForegroundReadMs };
  let kv = await LmdbKv.openLogged(dir, storeOpts);
  const meta = kv.get('meta', WORKFLOW_META_KEY) as Meta | undefined;
  if (meta?.converting) {
    // A conversion died half-way: start it again from nothing.
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
    kv = await LmdbKv.openLogged(dir, storeOpts);
  }
  let converted = 0;
  try {
    if (WorkflowStore.isEmpty(kv)) converted = await convertFromShared(o, kv);
    // The engine's store reads LMDB: the conversion's commits must be in it, not only in the commit log.
    await kv.applied();
    return { engine: new WorkflowEngine({ ...o, kv }), kv, converted };
  } catch (err) {
    // The caller never gets the backend, so it is closed here: a thread that ends (a conversion commit
    // failed on a full disk) must not leave lmdb-js writes in flight behind it.
    await kv.close().catch(() => undefined);
    throw err;
  }
}

async function convertFromShared(o: PartitionOptions, kv: LmdbKv): Promise<number> {
  const v1Dir = join(o.dataDir, STORE_DIR_NAME);
  if (!existsSync(join(v1Dir, 'data.mdb'))) return 0;
  // The documents metadata store owns this environment (it may be open on the main thread now).
  const v1 = Store.open(v1Dir, { secondary: true });
  try {
    const src: V1Source = {
      // Layout-1 values are msgpack bytes stored through the store's value encoding (so: decoded twice).
      *records(space) { for (const { key, value } of v1.db<Uint8Array>(WORKFLOW_DB_PREFIX + space).getRange()) yield [String(key), unpack(value)]; },
      get(space, key) { const v = v1.db<Uint8Array>(WORKFLOW_DB_PREFIX + space).get(key); return v === undefined ? undefined : unpack(v); },
    };
    if (!hasV1(src)) return 0;
    const st = new WorkflowStore(kv, { cacheEntries: 1024, partition: o.partition, partitions: o.partitions });
    st.open();
    return await convertV1(src, st);
  } finally {
    await v1.close();
  }
}
