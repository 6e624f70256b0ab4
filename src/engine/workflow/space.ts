/**
 * Record spaces of the workflow engine over a `KvBackend` (docs/format.md "Workflow state").
 *
 * - `Space<V>`: keyed records read on demand and kept in a bounded cache (two generations, an approximate
 *   LRU). Changed records are held in `dirty` until the next commit takes them (they cannot be evicted
 *   meanwhile), then in `committing` until that commit is durable, so a read never goes to disk for a value
 *   the disk does not have yet.
 * - `FullSpace<V>`: a small space (workflows, channels, statistics) loaded whole at open and never evicted,
 *   so it can be iterated.
 * - `IndexSpace`: keys only, ordered; the engine's secondary indexes (by workflow, by fire time, …). Range
 *   reads merge the uncommitted changes over the committed B-tree.
 *
 * Records are mutated in place and then `touch`ed; the commit encodes them when it starts, so a mutation
 * after that point belongs to the next commit. A record referenced across an await (a run during a
 * webhook call) is `pin`ned so that a later `get` returns the same object.
 */
import { byteOrder, type KvBackend, type KvWrite } from './kv.ts';
import { encodeValue } from './values.ts';

/** Marker value of index entries (LMDB needs a value; one byte of msgpack, encoded once). */
const PRESENT = 1;
const PRESENT_BYTES = encodeValue(PRESENT);

abstract class Tracked<V> {
  protected dirty = new Map<string, V | null>();
  /** Snapshots taken by `takeWrites` whose commits are not durable yet, oldest first. */
  protected committing: Map<string, V | null>[] = [];

  constructor(readonly name: string, protected readonly kv: KvBackend) {}

  /** The pending value: a record, null when deleted, undefined when not pending. */
  protected pending(key: string): V | null | undefined {
    const d = this.dirty.get(key);
    if (d !== undefined) return d;
    for (let i = this.committing.length - 1; i >= 0; i--) {
      const c = this.committing[i].get(key);
      if (c !== undefined) return c;
    }
    return undefined;
  }

  get changed(): number { return this.dirty.size; }

  protected encode(v: V): Uint8Array { return encodeValue(v); }

  /** Encodes every changed record into `out` and moves them to `committing`. */
  takeWrites(out: KvWrite[]): void {
    // forEach, not `for…of` with destructuring: no entry pair per record.
    this.dirty.forEach((v, key) => { out.push({ space: this.name, key, value: v === null ? null : this.encode(v) }); });
    this.committing.push(this.dirty);
    this.dirty = new Map();
  }

  /** The commit of the oldest outstanding `takeWrites` is durable. */
  committed(): void { this.committing.shift(); }
}

/**
 * Cache entry of a key known to be absent on disk. An event of a new contact looks up the same missing
 * records several times (its state, then its run head while checking entry and starting the run): each
 * look-up was an LMDB read until the record was set.
 */
const ABSENT: unique symbol = Symbol('absent');

export class Space<V> extends Tracked<V> {
  /**
   * The cache, in two generations of at most `capacity / 2` records each: a record read or written goes
   * into `young`; when `young` is full it becomes `old` (the previous `old` is dropped), and a record
   * found in `old` moves back into `young`. An approximate LRU at a Map operation or two per access: the
   * exact LRU (delete and re-insert on every hit, evict via `keys().next()`) cost an event about as much
   * as its LMDB writes, since V8's ordered Map skips the holes deletions leave at its front.
   */
  private young = new Map<string, V | typeof ABSENT>();
  private old = new Map<string, V | typeof ABSENT>();
  private readonly generation: number;
  private readonly pins = new Map<string, { v: V; n: number }>();

  constructor(name: string, kv: KvBackend, capacity: number) {
    super(name, kv);
    this.generation = Math.max(1, Math.floor(capacity / 2));
  }

  get(key: string): V | undefined {
    const p = this.pending(key);
    if (p !== undefined) return p ?? undefined;
    const pin = this.pins.get(key);
    if (pin) return pin.v;
    let c = this.young.get(key);
    if (c === undefined) {
      c = this.old.get(key);
      if (c !== undefined) this.remember(key, c); // used again: into the young generation
    }
    if (c !== undefined) return c === ABSENT ? undefined : c;
    const v = this.kv.get(this.name, key) as V | undefined;
    this.remember(key, v === undefined ? ABSENT : v);
    return v;
  }

  has(key: string): boolean { return this.get(key) !== undefined; }

  set(key: string, v: V): void { this.dirty.set(key, v); this.remember(key, v); }

  /** Marks an in-place mutation of a record obtained from `get`. */
  touch(key: string): void {
    const v = this.get(key);
    if (v !== undefined) this.dirty.set(key, v);
  }

  delete(key: string): void { this.dirty.set(key, null); this.young.delete(key); this.old.delete(key); }

  pin(key: string, v: V): void {
    const p = this.pins.get(key);
    if (p) p.n++; else this.pins.set(key, { v, n: 1 });
  }

  unpin(key: string): void {
    const p = this.pins.get(key);
    if (p && --p.n === 0) this.pins.delete(key);
  }

  /** Records cached (an upper bound: one moved back from `old` counts until `old` is dropped). */
  get cached(): number { return this.young.size + this.old.size; }

  protected remember(key: string, v: V | typeof ABSENT): void {
    if (this.young.size >= this.generation && !this.young.has(key)) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, v);
  }
}

/** A small space held whole in memory (loaded at open), so it can be listed. */
export class FullSpace<V> extends Space<V> {
  private readonly all = new Map<string, V>();

  constructor(name: string, kv: KvBackend) { super(name, kv, Infinity); }

  load(): void {
    for (const [k, v] of this.kv.range(this.name, '', '\uffff', Infinity)) this.all.set(k, v as V);
  }

  override get(key: string): V | undefined { return this.all.get(key); }
  override set(key: string, v: V): void { this.all.set(key, v); this.dirty.set(key, v); }
  override delete(key: string): void { this.all.delete(key); this.dirty.set(key, null); }
  values(): IterableIterator<V> { return this.all.values(); }
  get size(): number { return this.all.size; }
}

/** Ordered keys; `scan` merges uncommitted adds and deletes over the committed B-tree. */
export class IndexSpace extends Tracked<number> {
  /** Keys added since the last `takeWrites` that cannot be on disk (`addNew`): removing one writes nothing. */
  private fresh = new Set<string>();

  add(key: string): void { this.dirty.set(key, PRESENT); }

  /** `add` of a key that has never existed (it ends with a new id): a remove before the commit cancels it. */
  addNew(key: string): void { this.dirty.set(key, PRESENT); this.fresh.add(key); }

  remove(key: string): void {
    if (this.fresh.delete(key)) { this.dirty.delete(key); return; }
    this.dirty.set(key, null);
  }

  protected override encode(): Uint8Array { return PRESENT_BYTES; }

  override takeWrites(out: KvWrite[]): void {
    super.takeWrites(out);
    this.fresh = new Set();
  }

  has(key: string): boolean {
    const p = this.pending(key);
    if (p !== undefined) return p !== null;
    return this.kv.get(this.name, key) !== undefined;
  }

  /**
   * Up to `limit` keys with `start <= key < end` in key order. Cost: the committed range plus one pass
   * over the uncommitted changes (a batch's worth).
   */
  scan(start: string, end: string, limit: number): string[] {
    const adds = new Set<string>();
    const hidden = new Set<string>();
    for (const c of this.committing) this.overlay(c, start, end, adds, hidden);
    this.overlay(this.dirty, start, end, adds, hidden);
    const added = [...adds].filter((k) => this.pending(k) !== null).sort(byteOrder);
    const out: string[] = [];
    let ai = 0;
    // Over-fetch by the number of hidden keys: each may cost one committed entry.
    for (const [k] of this.kv.range(this.name, start, end, limit + hidden.size)) {
      while (ai < added.length && byteOrder(added[ai], k) < 0 && out.length < limit) out.push(added[ai++]);
      if (out.length >= limit) return out;
      if (ai < added.length && added[ai] === k) ai++;
      if (hidden.has(k)) continue;
      out.push(k);
      if (out.length >= limit) return out;
    }
    while (ai < added.length && out.length < limit) out.push(added[ai++]);
    return out;
  }

  private overlay(m: Map<string, number | null>, start: string, end: string, adds: Set<string>, hidden: Set<string>): void {
    for (const [k, v] of m) {
      if (k < start || k >= end) continue;
      if (v === null) hidden.add(k);
      else { hidden.delete(k); adds.add(k); }
    }
  }
}

/** Separator of key parts: below every printable character, so a prefix scan never runs into a longer id. */
export const SEP = '\u001f';
/** Exclusive end of the keys that start with `prefix`. */
export const prefixEnd = (prefix: string): string => prefix + '\uffff';
/** Fixed-width decimal, so that numbers sort as strings (fire times, workflow ids). */
export const pad = (n: number): string => String(n).padStart(16, '0');
