/**
 * The only module that imports `lmdb` (docs/format.md "LMDB environment").
 *
 * One LMDB environment per data directory (a directory holding `data.mdb` and `lock.mdb`) with named
 * databases. Keys use lmdb-js's ordered-binary encoding (strings, numbers and arrays of them sort
 * naturally); values are `STORE_VALUE_VERSION` (one byte) followed by msgpack. The `_meta` database holds
 * the schema-version record, checked on open.
 *
 * Threads: several worker threads of one process may each call `Store.open` on the same path — lmdb-js
 * shares the environment between them; reads are synchronous snapshots, writes are committed in batches off
 * the JS thread. Writes resolve once the commit is flushed to disk.
 */
import { open, type Database, type RootDatabase, type Key } from 'lmdb';
import { existsSync, mkdirSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { checkLmdbMetaPages } from './lmdb-meta-pages.ts';
import { FOREGROUND_BUDGET_MS, readThroughWithin, startReadThrough, type BackgroundRead } from './lmdb-consistency.ts';
import { syncDirSync, writeFileAtomicSync } from './durable-files.ts';
import { CorruptionError, FormatVersionError, OverloadedError } from '../errors.ts';
import { pack, unpack } from '../codec/msgpack.ts';
import {
  STORE_CLEAN_CLOSE_FILE, STORE_META_DB, STORE_SCHEMA_KEY, STORE_SCHEMA_MIN_VERSION, STORE_SCHEMA_VERSION, STORE_VALUE_VERSION,
} from '../codec/format-ids.ts';

export type StoreKey = string | number | (string | number)[];

export interface RangeOptions { start?: StoreKey; end?: StoreKey; reverse?: boolean; limit?: number }

/**
 * The condition of a guarded `writePacked`: the entry `key` of the versioned database `db` (lmdb-js
 * `useVersions`; use no other API on it) must have version `ifVersion` (null: must not exist) when LMDB runs
 * the transaction, and is set to `version` by the same writes. Chaining each write's `version` into the next
 * one's `ifVersion` makes a write queued behind a failed one write nothing: the version it expects was never
 * committed.
 */
export interface WriteGuard { db: string; key: StoreKey; ifVersion: number | null; version: number }

/**
 * How `Store.writePacked`'s caller hands it each write: a stored value (null: a delete) for `key` of `db`. A
 * call per write, not an array of write objects: a workflow commit's thousands of writes made as many objects
 * the engine thread allocated only for this loop.
 */
export type PackedWrite = (db: StoreDb<unknown>, key: StoreKey, value: Uint8Array | null) => void;

/** `Store.commitMetrics`: totals since the environment was opened. */
export interface CommitMetrics { txns: number; txnMs: number; syncMs: number; pagesWritten: number }

/** A named database whose values are msgpack-encoded behind a one-byte value version. */
export interface StoreDb<V> {
  /** Synchronous read of the latest committed value, or undefined. */
  get(key: StoreKey): V | undefined;
  /** Queued write; resolves (true) once committed and flushed. */
  put(key: StoreKey, value: V): Promise<boolean>;
  /** Queued delete; resolves true when the key existed, once committed and flushed. */
  remove(key: StoreKey): Promise<boolean>;
  /** Entries in key order (`end` exclusive), decoded lazily while iterating. */
  getRange(opts?: RangeOptions): Iterable<{ key: StoreKey; value: V }>;
  /**
   * The stored bytes of `key` (value-version byte included) for a caller with its own value encoding
   * (`Store.writePacked`).
   */
  getStored(key: StoreKey): Uint8Array | undefined;
  /** `getRange` of stored bytes (see `getStored`). */
  getStoredRange(opts?: RangeOptions): Iterable<{ key: StoreKey; value: Uint8Array }>;
  /** Write inside `Store.transaction` (or as its own synchronous transaction outside one). */
  putSync(key: StoreKey, value: V): void;
  /** Delete inside `Store.transaction`; returns whether the key existed. */
  removeSync(key: StoreKey): boolean;
  /**
   * `putSync` of a value the caller already msgpack-encoded (`body`), e.g. to snapshot a record before the
   * transaction callback runs; stored exactly as `putSync` stores the decoded value.
   */
  putPackedSync(key: StoreKey, body: Uint8Array): void;
}

export interface StoreOpenOptions { secondary?: boolean; foregroundReadMs?: number }

export class Store {
  readonly path: string;
  private readonly root: RootDatabase;
  private readonly dbs = new Map<string, LmdbStoreDb<unknown>>();
  private readonly versioned = new Map<string, Database<Buffer, Key>>();
  /** Set when a commit of this environment failed (see `close`). */
  private commitFailed = false;
  /** The consistency read left to the background (lmdb-consistency.ts), or null. */
  private backgroundRead: BackgroundRead | null = null;
  /**
   * Damage the background read found: from then on every read and write through this Store throws it, and the
   * environment is not marked closed cleanly.
   */
  private damage: CorruptionError | null = null;
  private readonly damageListeners: ((err: CorruptionError) => void)[] = [];

  private constructor(path: string, root: RootDatabase, readonly created: boolean, private readonly owner: boolean) {
    this.path = path;
    this.root = root;
  }

  /**
   * Opens (creating when absent) the environment in directory `path` and checks its schema-version record:
   * FormatVersionError when it is outside what this build reads, CorruptionError when it does not decode.
   * A new environment gets the current schema version (and `created` is true). The meta pages of an existing one
   * are checked first (lmdb-meta-pages.ts), and after an unclean close (no `STORE_CLEAN_CLOSE_FILE`) every entry
   * is read through once (lmdb-consistency.ts), so damage is reported rather than crashing the process.
   *
   * `secondary`: another Store of this process owns the environment (it is open there too): this one neither
   * checks it nor touches the clean-close marker, whose state is the owner's. `foregroundReadMs`: how long the
   * open waits for the consistency read before leaving it to the background (`FOREGROUND_BUDGET_MS`; 0 leaves
   * it to the background at once, as tests do to meet that path).
   */
  static open(path: string, opts: StoreOpenOptions = {}): Store {
    mkdirSync(path, { recursive: true });
    const dataFile = join(path, 'data.mdb');
    const existed = existsSync(dataFile);
    const owner = opts.secondary !== true;
    let readLater = false;
    if (existed && owner) {
      checkLmdbMetaPages(dataFile);
      const marker = join(path, STORE_CLEAN_CLOSE_FILE);
      if (existsSync(marker)) {
        // From here until the next clean close, a crash must leave the marker absent.
        rmSync(marker);
        syncDirSync(path);
      } else {
        const budget = opts.foregroundReadMs ?? FOREGROUND_BUDGET_MS;
        readLater = budget === 0 || !readThroughWithin(path, import.meta.resolve('lmdb'), budget);
      }
    }
    // trackMetrics (missing from lmdb-js's type declarations): LMDB counts the time its commits spend
    // writing and syncing (a clock read or two per transaction), for `commitMetrics`.
    const options = { path, noSubdir: false, maxDbs: 128, encoding: 'binary' as const, trackMetrics: true };
    const root = open(options);
    const store = new Store(path, root, !existed, owner);
    try {
      store.checkSchema();
    } catch (err) {
      root.close();
      throw err;
    }
    if (readLater) store.readThroughInBackground();
    return store;
  }

  /**
   * The consistency read that did not finish within its foreground budget, done again in a child process
   * while the node serves. Damage it finds fails the Store (`checkUsable`), goes to the `onDamage` listeners
   * (the owner marks its component failed) and is reported as a process warning (the structured log) naming
   * the file.
   */
  private readThroughInBackground(): void {
    this.backgroundRead = startReadThrough(this.path, import.meta.resolve('lmdb'), (err) => {
      this.damage = err;
      process.emitWarning(err.message, 'TesseraCorruptionWarning');
      for (const fn of this.damageListeners) fn(err);
    });
  }

  /** Calls `fn` when the background consistency read finds damage (at once when it has already). */
  onDamage(fn: (err: CorruptionError) => void): void {
    if (this.damage !== null) fn(this.damage);
    else this.damageListeners.push(fn);
  }

  /** Throws the damage the background consistency read found: nothing is read from or written to it after. */
  checkUsable(): void {
    if (this.damage !== null) throw this.damage;
  }

  /** The named database `name` (opened once per Store and cached). */
  db<V = unknown>(name: string): StoreDb<V> {
    let db = this.dbs.get(name);
    if (!db) {
      db = new LmdbStoreDb<unknown>(this, name, this.root.openDB<Buffer, Key>({ name, encoding: 'binary' }), this.root, (e) => this.failed(e));
      this.dbs.set(name, db);
    }
    return db as StoreDb<V>;
  }

  /**
   * Runs `fn` inside one write transaction (use `putSync`/`removeSync` and reads in it); resolves with its
   * result once the transaction is committed and flushed. A throw from `fn` aborts the transaction.
   */
  async transaction<T>(fn: () => T): Promise<T> {
    this.checkUsable();
    // A child transaction, so that a throw from `fn` rolls back its writes (a plain async transaction
    // would commit whatever ran before the throw together with the rest of its batch).
    const result = (await this.root.childTransaction(fn).catch((e: unknown) => this.failed(e))) as T;
    await this.root.flushed;
    return result;
  }

  /**
   * Applies puts of stored values (a value-version byte and the body, as the caller encodes them: read them
   * back with `getStored`) and deletes (`value` null) to named databases, each handed over by one synchronous
   * call of `writes` (`PackedWrite`), as ONE transaction, executed on lmdb-js's write thread rather than this
   * one: the writes are queued in that one call, and lmdb-js commits every asynchronous write of an event turn
   * in the same transaction (`eventTurnBatching`, on by default; nothing here runs a synchronous transaction
   * that could split it). Resolves once the transaction is durable: true, or false when `guard` did not hold and
   * nothing was written. A failed transaction rejects (DISK_FULL on a full disk).
   *
   * With a guard, the writes form one lmdb-js conditional block (`ifVersion`), checked by the write thread
   * inside the transaction. That is what makes a guard chain safe: lmdb-js neither cancels nor checks the
   * writes queued behind a transaction that failed — they go into the next transaction, which its write
   * thread may start before this thread has even heard of the failure.
   */
  async writePacked(writes: (write: PackedWrite) => void, guard: WriteGuard): Promise<boolean> {
    this.checkUsable();
    const g = this.versionedDb(guard.db);
    const body = prefixVersion(pack(guard.version));
    // Writes inside the block resolve at once (lmdb-js gives them no promise of their own); the block's
    // promise resolves false when the condition failed and rejects when the transaction failed.
    const block = (): void => {
      writes(queuePacked);
      void g.put(guard.key, body, guard.version);
    };
    const done = guard.ifVersion === null ? g.ifNoExists(guard.key, block) : g.ifVersion(guard.key, guard.ifVersion, block);
    const ok = await done.catch((e: unknown) => this.failed(e));
    await this.root.flushed;
    return ok;
  }

  /** Resolves once every transaction committed so far is flushed to disk. */
  flushed(): Promise<void> { return (this.root.flushed as Promise<unknown>).then(() => undefined); }

  /**
   * What this environment's commits have cost since it was opened in this process (LMDB's counters, summed
   * over every thread that writes to it): transactions, milliseconds on the write thread inside them
   * (writes and page writes), milliseconds syncing to disk, and pages written.
   */
  commitMetrics(): CommitMetrics {
    const s = this.root.getStats() as { txns?: number; timeDuringTxns?: number; timeSync?: number; pagesWritten?: number };
    return { txns: s.txns ?? 0, txnMs: (s.timeDuringTxns ?? 0) * 1000, syncMs: (s.timeSync ?? 0) * 1000, pagesWritten: s.pagesWritten ?? 0 };
  }

  /** The version of a guard entry (`WriteGuard`), or undefined when it does not exist. */
  guardVersion(db: string, key: StoreKey): number | undefined {
    this.checkUsable();
    return this.versionedDb(db).getEntry(key)?.version;
  }

  private versionedDb(name: string): Database<Buffer, Key> {
    let db = this.versioned.get(name);
    if (!db) {
      db = this.root.openDB<Buffer, Key>({ name, encoding: 'binary', useVersions: true });
      this.versioned.set(name, db);
    }
    return db;
  }

  /**
   * Closes the environment once every queued write has ended. After a failed commit, lmdb-js's close would
   * wait forever: it waits for the flush of the last transaction, and the flush promise of one that failed
   * is never settled (its resolvers run only on success). One empty transaction (it writes nothing, so a
   * full disk cannot refuse it) gives close a settled flush to wait for; without it a partition thread that
   * ended on a full disk never exited and was never restarted.
   */
  async close(): Promise<void> {
    if (this.commitFailed) await this.root.transaction(() => undefined).catch(() => undefined);
    await this.root.close();
    // Every commit is flushed (close waited for it): the next open can skip the consistency read — unless that
    // read found damage or had not finished.
    const unverified = this.backgroundRead !== null && !this.backgroundRead.finished;
    this.backgroundRead?.stop();
    if (this.owner && this.damage === null && !unverified) {
      writeFileAtomicSync(join(this.path, STORE_CLEAN_CLOSE_FILE), []);
      syncDirSync(this.path);
    }
  }

  /** What a failed commit stands for (`commitFailure`); remembers the failure for `close`. */
  private async failed(e: unknown): Promise<never> {
    this.commitFailed = true;
    throw await commitFailure(e, this.path);
  }

  private checkSchema(): void {
    const meta = this.db<number>(STORE_META_DB);
    const found = meta.get(STORE_SCHEMA_KEY);
    if (found === undefined) {
      this.root.transactionSync(() => meta.putSync(STORE_SCHEMA_KEY, STORE_SCHEMA_VERSION));
      return;
    }
    if (typeof found !== 'number' || !Number.isInteger(found)) {
      throw new CorruptionError(`${this.path} (${STORE_META_DB}/${STORE_SCHEMA_KEY})`, 0, `schema version is not an integer`);
    }
    if (found < STORE_SCHEMA_MIN_VERSION || found > STORE_SCHEMA_VERSION) {
      throw new FormatVersionError(this.path, found, STORE_SCHEMA_MIN_VERSION, STORE_SCHEMA_VERSION);
    }
  }
}

class LmdbStoreDb<V> implements StoreDb<V> {
  private readonly where: string;
  private readonly db: Database<Buffer, Key>;
  /** The lmdb-js database (for `Store.writePacked`). */
  get raw(): Database<Buffer, Key> { return this.db; }
  private readonly root: RootDatabase;

  /** The store's handler of a failed commit (types it, and remembers it for `Store.close`). */
  private readonly failed: (e: unknown) => Promise<never>;

  /** The owning Store: every call checks it is usable (not found damaged). */
  private readonly store: Store;

  constructor(store: Store, name: string, db: Database<Buffer, Key>, root: RootDatabase, failed: (e: unknown) => Promise<never>) {
    this.store = store;
    this.failed = failed;
    this.where = `${store.path} (${name})`;
    this.db = db;
    this.root = root;
  }

  get(key: StoreKey): V | undefined {
    this.store.checkUsable();
    const bytes = this.db.getBinary(key);
    return bytes === undefined ? undefined : this.decode(bytes, key);
  }

  async put(key: StoreKey, value: V): Promise<boolean> {
    this.store.checkUsable();
    const ok = await this.db.put(key, encodeValue(value)).catch(this.failed);
    await this.root.flushed;
    return ok;
  }

  async remove(key: StoreKey): Promise<boolean> {
    this.store.checkUsable();
    // An async `remove` resolves true whether or not the key existed; removeSync in a transaction tells.
    const existed = await this.root.transaction(() => this.db.removeSync(key)).catch(this.failed);
    await this.root.flushed;
    return existed;
  }

  getRange(opts: RangeOptions = {}): Iterable<{ key: StoreKey; value: V }> {
    this.store.checkUsable();
    return this.db.getRange(opts).map(({ key, value }) => ({ key: key as StoreKey, value: this.decode(value, key as StoreKey) }));
  }

  getStored(key: StoreKey): Uint8Array | undefined {
    this.store.checkUsable();
    return this.db.getBinary(key);
  }

  getStoredRange(opts: RangeOptions = {}): Iterable<{ key: StoreKey; value: Uint8Array }> {
    this.store.checkUsable();
    return this.db.getRange(opts).map(({ key, value }) => ({ key: key as StoreKey, value }));
  }

  putSync(key: StoreKey, value: V): void {
    this.store.checkUsable();
    this.db.putSync(key, encodeValue(value));
  }

  removeSync(key: StoreKey): boolean {
    this.store.checkUsable();
    return this.db.removeSync(key);
  }

  putPackedSync(key: StoreKey, body: Uint8Array): void {
    this.store.checkUsable();
    this.db.putSync(key, prefixVersion(body));
  }

  private decode(bytes: Uint8Array, key: StoreKey): V {
    if (bytes.length === 0 || bytes[0] !== STORE_VALUE_VERSION) {
      const v = bytes.length === 0 ? 'empty value' : `value version ${bytes[0]}, want ${STORE_VALUE_VERSION}`;
      throw new CorruptionError(`${this.where} key ${JSON.stringify(key)}`, 0, v);
    }
    return unpack<V>(bytes.subarray(1));
  }
}

function encodeValue(value: unknown): Buffer {
  return prefixVersion(pack(value));
}

/**
 * The error a failed commit stands for: lmdb-js rejects each write with "Commit failed" and the cause in a
 * `commitError` promise. A full disk is DISK_FULL, so callers can retry once space is back: errno 28
 * (ENOSPC), or 5 (EIO) while the file system has no space left — LMDB reports a short write as EIO.
 */
async function commitFailure(reason: unknown, path: string): Promise<unknown> {
  let cause = reason;
  const ce = (reason as { commitError?: Promise<unknown> } | null)?.commitError;
  // lmdb-js rejects the `commitError` promise that exists when its write thread reports a failure; when it
  // marks the failed transaction's writes only afterwards (a later write of this thread finds it), they
  // carry a new `commitError` that is never settled. So a commit that failed while the file system is out
  // of space is DISK_FULL without waiting for the cause (observed with a 2 MiB workflow commit on a full
  // tmpfs: the failure was never reported).
  if (ce && noSpaceLeft(path)) {
    ce.catch(() => undefined);
    return OverloadedError.of('DISK_FULL', ['LMDB', 'commit failed with no space left on the file system']);
  }
  if (ce) cause = await ce.then(() => reason, (e: unknown) => e);
  const code = (cause as { code?: unknown } | null)?.code;
  if (code === 28 || code === 'ENOSPC' || (code === 5 && noSpaceLeft(path))) {
    return OverloadedError.of('DISK_FULL', ['LMDB', String((cause as Error).message ?? cause)]);
  }
  return cause;
}

// lmdb-js also rejects internal promises of a failed commit that nothing can await, and an unhandled
// rejection ends the process (or the worker thread). The commit's own writes report the failure (above), so
// those rejections are dropped here — the adapter contains lmdb's quirk; every other rejection still ends it.
process.on('unhandledRejection', (reason) => {
  if (reason instanceof Error && reason.message.startsWith('Commit failed') && 'commitError' in reason) {
    (reason as { commitError: Promise<unknown> }).commitError.catch(() => undefined);
    return;
  }
  throw reason;
});

/** True when the file system holding `path` has less than LMDB's largest write (a few pages) available. */
function noSpaceLeft(path: string): boolean {
  try {
    const st = statfsSync(path);
    return st.bavail * st.bsize < 1024 * 1024;
  } catch {
    return false;
  }
}

/** `PackedWrite` inside `writePacked`'s conditional block. */
function queuePacked(db: StoreDb<unknown>, key: StoreKey, value: Uint8Array | null): void {
  // The handle itself, not its name: a lookup by a name built per write hashed a new string each time.
  const raw = (db as LmdbStoreDb<unknown>).raw;
  if (value === null) void raw.remove(key); else void raw.put(key, asBuffer(value));
}

/** A Buffer over the same memory (lmdb-js's binary encoding takes Buffers). */
function asBuffer(v: Uint8Array): Buffer {
  return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

function prefixVersion(body: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(body.length + 1);
  out[0] = STORE_VALUE_VERSION;
  out.set(body, 1);
  return out;
}
