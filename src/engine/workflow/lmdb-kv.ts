/**
 * `KvBackend` over the project's LMDB store: one environment per engine partition, one named database per
 * record space (`wf2_<space>`), every commit one LMDB transaction. Values are written pre-encoded (the
 * engine snapshots records when the commit starts, not when LMDB runs the transaction callback).
 */
import { Store, type StoreDb } from '../store/lmdb.ts';
import { WORKFLOW_V2_DB_PREFIX } from '../codec/format-ids.ts';
import type { KvBackend, KvWrite } from './kv.ts';

export class LmdbKv implements KvBackend {
  private readonly dbs = new Map<string, StoreDb<unknown>>();

  private constructor(readonly store: Store) {}

  static open(path: string): LmdbKv { return new LmdbKv(Store.open(path)); }

  private db(space: string): StoreDb<unknown> {
    let db = this.dbs.get(space);
    if (!db) { db = this.store.db<unknown>(WORKFLOW_V2_DB_PREFIX + space); this.dbs.set(space, db); }
    return db;
  }

  get(space: string, key: string): unknown { return this.db(space).get(key); }

  *range(space: string, start: string, end: string, limit: number): Iterable<[string, unknown]> {
    for (const { key, value } of this.db(space).getRange({ start, end, limit })) yield [key as string, value];
  }

  commit(writes: KvWrite[]): Promise<void> {
    // One transaction, written by lmdb-js's write thread (this thread only queues the writes).
    const out = new Array<{ db: string; key: string; value: Uint8Array | null }>(writes.length);
    for (let i = 0; i < writes.length; i++) {
      const w = writes[i];
      this.db(w.space); // opened (and cached) before the writes are queued
      out[i] = { db: WORKFLOW_V2_DB_PREFIX + w.space, key: w.key, value: w.value };
    }
    return this.store.writePacked(out);
  }

  close(): Promise<void> { return this.store.close(); }
}
