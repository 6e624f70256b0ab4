/**
 * `KvBackend` over the project's LMDB store: one named database per record space, every commit one LMDB
 * transaction (so an event's effects and its applied mark land together or not at all).
 */
import { Store } from '../store/lmdb.ts';
import { WORKFLOW_DB_PREFIX } from '../codec/format-ids.ts';
import type { KvBackend, KvWrite } from './kv.ts';

export class LmdbKv implements KvBackend {
  private constructor(private readonly store: Store) {}

  static open(path: string): LmdbKv { return new LmdbKv(Store.open(path)); }

  *load(space: string): Iterable<[string, Uint8Array]> {
    for (const { key, value } of this.store.db<Uint8Array>(`${WORKFLOW_DB_PREFIX}${space}`).getRange()) yield [String(key), value];
  }

  commit(writes: KvWrite[]): Promise<void> {
    return this.store.transaction(() => {
      for (let i = 0; i < writes.length; i++) {
        const w = writes[i];
        const db = this.store.db<Uint8Array>(`${WORKFLOW_DB_PREFIX}${w.space}`);
        if (w.value === null) db.removeSync(w.key); else db.putSync(w.key, w.value);
      }
    });
  }

  close(): Promise<void> { return this.store.close(); }
}
