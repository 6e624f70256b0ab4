/**
 * `KvBackend` over the project's LMDB store: one environment per engine partition, one named database per
 * record space (`wf2_<space>`), every commit one LMDB transaction. Values are written pre-encoded (the
 * engine snapshots records when the commit starts, not when LMDB runs the transaction callback) in the
 * workflow's own value encoding (`values.ts`), and decoded by it when read.
 *
 * Commits are guarded (docs/format.md "Workflow state", commit guard): commit n writes only if the guard
 * entry's version is n − 1 (for n = 1: only if there is none yet), and sets it to n. Commits are pipelined —
 * the next one is queued in lmdb-js while earlier ones are in flight — and lmdb-js runs a queued commit even
 * when the one before it failed; the guard makes it write nothing then, so a commit whose requests were
 * refused never lands.
 */
import { Store, type StoreDb } from '../store/lmdb.ts';
import { WORKFLOW_COMMIT_DB, WORKFLOW_COMMIT_KEY, WORKFLOW_V2_DB_PREFIX } from '../codec/format-ids.ts';
import { InternalError } from '../errors.ts';
import type { KvBackend, KvCommitMetrics, KvWrite } from './kv.ts';
import { decodeValue } from './values.ts';

export class LmdbKv implements KvBackend {
  private readonly dbs = new Map<string, StoreDb<unknown>>();
  /** Number of the last commit queued (the guard version the next one expects). */
  private seq: number;
  /** The last commit queued: a refused commit reports the failure of the one that broke the chain. */
  private last: Promise<void> = Promise.resolve();

  private constructor(readonly store: Store) {
    // None in a new environment or in layout 2 (written before the guard existed): the first commit makes it.
    this.seq = store.guardVersion(WORKFLOW_COMMIT_DB, WORKFLOW_COMMIT_KEY) ?? 0;
  }

  static open(path: string): LmdbKv { return new LmdbKv(Store.open(path)); }

  private db(space: string): StoreDb<unknown> {
    let db = this.dbs.get(space);
    if (!db) { db = this.store.db<unknown>(WORKFLOW_V2_DB_PREFIX + space); this.dbs.set(space, db); }
    return db;
  }

  get(space: string, key: string): unknown {
    const bytes = this.db(space).getStored(key);
    return bytes === undefined ? undefined : decodeValue(bytes, () => this.where(space, key));
  }

  *range(space: string, start: string, end: string, limit: number): Iterable<[string, unknown]> {
    for (const { key, value } of this.db(space).getStoredRange({ start, end, limit })) {
      yield [key as string, decodeValue(value, () => this.where(space, key as string))];
    }
  }

  /** A record's location, for a corruption report. */
  private where(space: string, key: string): string {
    return `${this.store.path} (${WORKFLOW_V2_DB_PREFIX}${space}) key ${JSON.stringify(key)}`;
  }

  commit(writes: KvWrite[]): Promise<void> {
    // One transaction, written by lmdb-js's write thread (this thread only queues the writes).
    const out = new Array<{ db: StoreDb<unknown>; key: string; value: Uint8Array | null }>(writes.length);
    for (let i = 0; i < writes.length; i++) {
      const w = writes[i];
      out[i] = { db: this.db(w.space), key: w.key, value: w.value };
    }
    const n = ++this.seq;
    const before = this.last;
    const guard = { db: WORKFLOW_COMMIT_DB, key: WORKFLOW_COMMIT_KEY, ifVersion: n === 1 ? null : n - 1, version: n };
    const p = this.store.writePacked(out, guard).then(async (ok) => {
      if (ok) return;
      // Refused: an earlier commit of this chain failed, and its error is what this one reports.
      await before;
      throw new InternalError('INTERNAL', `workflow commit ${n} refused by the commit guard although commit ${n - 1} succeeded`);
    });
    this.last = p;
    p.catch(() => undefined); // awaited by the next commit, which may be queued only after this one failed
    return p;
  }

  commitMetrics(): KvCommitMetrics { return this.store.commitMetrics(); }

  close(): Promise<void> { return this.store.close(); }
}
