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
 *
 * Opened with `openLogged` (the engine's partitions, layout 5), a commit is durable once its record in the
 * partition's commit log (`commit-log.ts`) is fsynced; LMDB is written behind the log, one transaction at a
 * time taking every commit logged meanwhile (a guarded transaction from the first one's predecessor to the
 * last), and `applied()` tells when what was committed is readable through `get`/`range`. A crash loses
 * nothing acknowledged: the log's records that LMDB lacks are applied again at the next open.
 */
import { readdirSync } from 'node:fs';
import { Store, type StoreDb, type StoreOpenOptions } from '../store/lmdb.ts';
import { WORKFLOW_COMMIT_DB, WORKFLOW_COMMIT_KEY, WORKFLOW_V2_DB_PREFIX } from '../codec/format-ids.ts';
import { CorruptionError, InternalError } from '../errors.ts';
import { CommitLog, type LoggedCommit } from './commit-log.ts';
import { byteOrder, type KvBackend, type KvCommitMetrics, type KvWrite } from './kv.ts';
import { decodeValue } from './values.ts';

/**
 * Records logged but not yet in LMDB beyond which a commit also waits for LMDB (bounds the memory that holds
 * them, and the replay after a crash, when LMDB cannot keep up with the log).
 */
const MAX_UNAPPLIED_WRITES = 200_000;

/** How long logged commits wait to be written to LMDB together, and the records after which they go at once. */
const APPLY_DELAY_MS = 25;
const APPLY_NOW_WRITES = 20_000;

interface Unapplied extends LoggedCommit { resolve(): void; reject(err: unknown): void }

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

  /** Opens without a commit log: every commit is durable in LMDB itself (tools, tests). */
  static open(path: string): LmdbKv {
    if (hasLog(path)) throw new InternalError('INTERNAL', `${path} has a workflow commit log: open it with openLogged`);
    return new LmdbKv(Store.open(path));
  }

  /**
   * Opens with the commit log (layout 5): first applies the logged commits LMDB lacks, in one transaction,
   * and waits until LMDB has flushed them; then the log starts afresh.
   */
  static async openLogged(path: string, opts: StoreOpenOptions = {}): Promise<LmdbKv> {
    const kv = new LmdbKv(Store.open(path, opts));
    try {
      const missing: LoggedCommit[] = [];
      const log = await CommitLog.open(path, (c) => { if (c.no > kv.seq) missing.push(c); });
      try {
        kv.log = log;
        if (missing.length > 0 && !(await kv.applyReplayed(missing))) return kv;
        await log.releaseAll();
      } catch (err) {
        await log.close().catch(() => undefined);
        throw err;
      }
      return kv;
    } catch (err) {
      await kv.store.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Applies the logged commits LMDB lacks; false when the disk is full: they are then served from memory
   * (`overlay`), and written to LMDB ahead of the next commit. The partition opens and answers reads
   * meanwhile; its first commit fails again while the disk stays full (and the thread is restarted).
   */
  private async applyReplayed(missing: LoggedCommit[]): Promise<boolean> {
    for (let i = 0; i < missing.length; i++) {
      // Records are appended in commit order and fsynced in order: a gap means a record LMDB needed is gone.
      if (missing[i].no !== this.seq + 1 + i) {
        throw new CorruptionError(`${CommitLog.dir(this.store.path)}`, 0, `commit log holds commit ${missing[i].no} where ${this.seq + 1 + i} was due (LMDB has ${this.seq})`);
      }
    }
    let ok: boolean;
    try {
      ok = await this.writeBatch(missing);
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'DISK_FULL') throw err;
      this.overlay = new Map();
      for (const c of missing) {
        for (const w of c.writes) {
          let m = this.overlay.get(w.space);
          if (!m) { m = new Map(); this.overlay.set(w.space, m); }
          m.set(w.key, w.value);
        }
        this.unapplied.push({ ...c, resolve: () => undefined, reject: () => undefined });
        this.unappliedWrites += c.writes.length;
      }
      this.seq = missing[missing.length - 1].no;
      return false;
    }
    if (!ok) throw new InternalError('INTERNAL', `replaying the commit log of ${this.store.path}: refused by the commit guard`);
    this.seq = missing[missing.length - 1].no;
    return true;
  }

  /** Logged commits that LMDB could not take at open (a full disk), by space and key: read before LMDB. */
  private overlay: Map<string, Map<string, Uint8Array | null>> | null = null;

  private db(space: string): StoreDb<unknown> {
    let db = this.dbs.get(space);
    if (!db) { db = this.store.db<unknown>(WORKFLOW_V2_DB_PREFIX + space); this.dbs.set(space, db); }
    return db;
  }

  get(space: string, key: string): unknown {
    const o = this.overlay?.get(space)?.get(key);
    if (o !== undefined) return o === null ? undefined : decodeValue(o, () => this.where(space, key));
    const bytes = this.db(space).getStored(key);
    return bytes === undefined ? undefined : decodeValue(bytes, () => this.where(space, key));
  }

  *range(space: string, start: string, end: string, limit: number): Iterable<[string, unknown]> {
    const o = this.overlay?.get(space);
    if (o === undefined) {
      for (const { key, value } of this.db(space).getStoredRange({ start, end, limit })) {
        yield [key as string, decodeValue(value, () => this.where(space, key as string))];
      }
      return;
    }
    // Rare (a partition opened on a full disk): the overlay's keys merged over LMDB's, read without a limit.
    const keys = [...o.keys()].filter((k) => k >= start && k < end).sort(byteOrder);
    let i = 0;
    let n = 0;
    const decoded = (k: string): unknown => decodeValue(o.get(k)!, () => this.where(space, k));
    for (const { key, value } of this.db(space).getStoredRange({ start, end })) {
      const k = key as string;
      for (; i < keys.length && keys[i] < k; i++) {
        if (o.get(keys[i]) === null) continue;
        yield [keys[i], decoded(keys[i])];
        if (++n >= limit) return;
      }
      if (i < keys.length && keys[i] === k) {
        i++;
        if (o.get(k) === null) continue;
        yield [k, decoded(k)];
      } else yield [k, decodeValue(value, () => this.where(space, k))];
      if (++n >= limit) return;
    }
    for (; i < keys.length; i++) {
      if (o.get(keys[i]) === null) continue;
      yield [keys[i], decoded(keys[i])];
      if (++n >= limit) return;
    }
  }

  /** A record's location, for a corruption report. */
  private where(space: string, key: string): string {
    return `${this.store.path} (${WORKFLOW_V2_DB_PREFIX}${space}) key ${JSON.stringify(key)}`;
  }

  commit(writes: KvWrite[]): Promise<void> {
    if (this.log !== null) return this.commitLogged(writes);
    // One transaction, written by lmdb-js's write thread (this thread only queues the writes).
    const n = ++this.seq;
    const before = this.last;
    const p = this.writeBatch([{ no: n, writes }]).then(async (ok) => {
      if (ok) return;
      // Refused: an earlier commit of this chain failed, and its error is what this one reports.
      await before;
      throw new InternalError('INTERNAL', `workflow commit ${n} refused by the commit guard although commit ${n - 1} succeeded`);
    });
    this.last = p;
    p.catch(() => undefined); // awaited by the next commit, which may be queued only after this one failed
    return p;
  }

  // ── layout 5: the commit log, LMDB written behind it ──

  private log: CommitLog | null = null;
  private readonly unapplied: Unapplied[] = [];
  private unappliedWrites = 0;
  private applying = false;
  private lastApplied: Promise<void> = Promise.resolve();
  /** The first failure of the log or of LMDB: every later commit is refused with it. */
  private failure: unknown = null;

  private commitLogged(writes: KvWrite[]): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const no = ++this.seq;
    const durable = this.log!.append(no, writes);
    // A commit goes to LMDB only once the log holds it: one the log refused (a full disk) is answered as failed
    // and must never become readable — written to LMDB ahead of its log record, it was, whenever LMDB still had
    // room inside its file while the log could not grow. The log settles its appends in commit order.
    const applied = new Promise<void>((resolve, reject) => {
      durable.then(() => {
        this.unapplied.push({ no, writes, resolve, reject });
        this.unappliedWrites += writes.length;
        this.applyNext();
      }, reject);
    });
    applied.catch(() => undefined); // reported through `applied()` and the failure latch
    this.lastApplied = applied;
    const logged = durable.catch((err: unknown) => { this.failure ??= err; throw err; });
    return this.unappliedWrites > MAX_UNAPPLIED_WRITES ? Promise.all([logged, applied]).then(() => undefined) : logged;
  }

  /** Resolves once every commit made so far is readable through `get` and `range` (is in LMDB). */
  applied(): Promise<void> { return this.lastApplied; }

  private applyTimer: NodeJS.Timeout | null = null;

  /**
   * Writes the logged commits not yet in LMDB as one transaction, APPLY_DELAY_MS after the first of them
   * (at once past APPLY_NOW_WRITES), unless one is being written. LMDB writes and syncs some thirty scattered
   * pages per transaction whatever its size, and the device serves the log's fsyncs only after them: one
   * transaction for many commits leaves the disk to the log most of the time.
   */
  private applyNext(): void {
    if (this.applying || this.unapplied.length === 0) return;
    if (this.unappliedWrites < APPLY_NOW_WRITES) {
      this.applyTimer ??= setTimeout(() => { this.applyTimer = null; this.applyNow(); }, APPLY_DELAY_MS);
      return;
    }
    this.applyNow();
  }

  private applyNow(): void {
    if (this.applyTimer !== null) { clearTimeout(this.applyTimer); this.applyTimer = null; }
    if (this.applying || this.unapplied.length === 0) return;
    const batch = this.unapplied.splice(0);
    this.applying = true;
    // The next transaction starts once this one is flushed, not merely committed: lmdb-js syncs after every
    // transaction on its one write thread, so the commits logged meanwhile then share one transaction and one
    // sync, and LMDB's scattered page writes compete less with the log's fsyncs.
    this.writeBatch(batch).then((ok) => {
      if (!ok) throw new InternalError('INTERNAL', `workflow commits ${batch[0].no}–${batch[batch.length - 1].no} refused by the commit guard`);
      for (const c of batch) { this.unappliedWrites -= c.writes.length; c.resolve(); }
      this.overlay = null; // the replayed commits, if any, came first in this batch
      this.applying = false;
      // LMDB has flushed them: the log's segments holding only these commits can go.
      void this.log?.release(batch[batch.length - 1].no).catch(() => undefined);
      this.applyNext();
    }).catch((err: unknown) => {
      this.failure ??= err;
      for (const c of batch) c.reject(err);
      for (const c of this.unapplied.splice(0)) c.reject(err);
      this.applying = false;
    });
  }

  /** Commits `batch` (consecutive commit numbers) in one guarded LMDB transaction. */
  private writeBatch(batch: readonly LoggedCommit[]): Promise<boolean> {
    const first = batch[0].no;
    const last = batch[batch.length - 1].no;
    const guard = { db: WORKFLOW_COMMIT_DB, key: WORKFLOW_COMMIT_KEY, ifVersion: first === 1 ? null : first - 1, version: last };
    return this.store.writePacked((write) => {
      for (let c = 0; c < batch.length; c++) {
        const writes = batch[c].writes;
        for (let i = 0; i < writes.length; i++) { const w = writes[i]; write(this.db(w.space), w.key, w.value); }
      }
    }, guard);
  }

  commitMetrics(): KvCommitMetrics {
    const m = this.store.commitMetrics();
    return this.log === null ? m : { ...m, logSyncs: this.log.syncs() };
  }

  async close(): Promise<void> {
    if (this.log !== null) {
      this.applyNow();
      await this.lastApplied.catch(() => undefined);
      // Everything is in LMDB once it has flushed: the log is no longer needed (after a failure it is kept).
      if (this.failure === null) { await this.store.flushed(); await this.log.releaseAll(); }
      await this.log.close();
    }
    await this.store.close();
  }
}

/** Whether the environment in `path` has a commit log with segments in it. */
function hasLog(path: string): boolean {
  try { return readdirSync(CommitLog.dir(path)).length > 0; } catch { return false; }
}
