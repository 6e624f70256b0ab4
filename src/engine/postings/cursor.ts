/**
 * Doc cursors: the one iteration contract of postings, filters and scorers (style.md B.2, Tantivy's DocSet).
 * A cursor walks increasing segment-local doc ids. `doc()` is -1 before the first `next`/`seek` and
 * `NO_MORE_DOCS` once exhausted; `next`/`seek` stay legal after exhaustion and keep returning it.
 */

export const NO_MORE_DOCS = 0x7fff_ffff;

export interface DocCursor {
  /** Current doc; -1 before the first call, NO_MORE_DOCS when exhausted. */
  doc(): number;
  /** Advances by one and returns the new doc. */
  next(): number;
  /** First doc >= target; does not move when doc() >= target already. */
  seek(target: number): number;
  /** Upper bound of the docs still to come (intersections lead with the cheapest). */
  cost(): number;
  /** Copies up to out.length docs starting at the current one (calling next() first if unpositioned); returns the count. */
  fill(out: Uint32Array): number;
}

/**
 * A cursor that can also check one doc without walking to it (Lucene's two-phase iteration): a doc-values
 * range scans every doc to find the next match, but tells in one read whether a given doc matches. An
 * intersection checks such cursors on the docs its other inputs agree on instead of leapfrogging them, and
 * does not position them: their score must not depend on their position.
 */
export interface VerifyingCursor extends DocCursor {
  matches(doc: number): boolean;
}

function verifies(c: DocCursor): c is VerifyingCursor {
  return typeof (c as Partial<VerifyingCursor>).matches === 'function';
}

/** Generic `fill` over next(): used by cursors with no faster bulk path. */
export function fillByNext(c: DocCursor, out: Uint32Array): number {
  let d = c.doc();
  if (d === -1) d = c.next();
  let n = 0;
  while (n < out.length && d !== NO_MORE_DOCS) {
    out[n++] = d;
    d = c.next();
  }
  return n;
}

/** A cursor over a sorted, duplicate-free run of a Uint32Array (postings, materialised filters). */
export class ArrayCursor implements DocCursor {
  docs: Uint32Array;
  start: number;
  end: number;
  /** Index of the current doc in `docs`; start-1 before the first call. */
  pos: number;
  cur: number;
  constructor(docs: Uint32Array, start = 0, end = docs.length) {
    this.docs = docs;
    this.start = start;
    this.end = end;
    this.pos = start - 1;
    this.cur = -1;
  }
  /** Re-targets this cursor at another run without allocating. */
  reset(docs: Uint32Array, start: number, end: number): this {
    this.docs = docs; this.start = start; this.end = end; this.pos = start - 1; this.cur = -1;
    return this;
  }
  doc(): number { return this.cur; }
  next(): number {
    if (this.cur === NO_MORE_DOCS) return NO_MORE_DOCS;
    const p = ++this.pos;
    this.cur = p < this.end ? this.docs[p] : NO_MORE_DOCS;
    return this.cur;
  }
  seek(target: number): number {
    if (this.cur >= target) return this.cur;
    const docs = this.docs;
    let lo = this.pos + 1;
    // Gallop then binary search: seeks in intersections are usually short hops.
    let step = 1;
    let hi = lo;
    while (hi < this.end && docs[hi] < target) { lo = hi + 1; hi += step; step <<= 1; }
    if (hi > this.end) hi = this.end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (docs[mid] < target) lo = mid + 1; else hi = mid;
    }
    this.pos = lo;
    this.cur = lo < this.end ? docs[lo] : NO_MORE_DOCS;
    return this.cur;
  }
  cost(): number { return this.end - this.pos - 1 + (this.cur === -1 ? 0 : 1); }
  fill(out: Uint32Array): number {
    if (this.cur === -1) this.next();
    if (this.cur === NO_MORE_DOCS) return 0;
    const n = Math.min(out.length, this.end - this.pos);
    out.set(this.docs.subarray(this.pos, this.pos + n));
    this.pos += n - 1;
    this.next();
    return n;
  }
}

/** Every doc in [0, maxDoc). */
export class AllCursor implements DocCursor {
  private cur = -1;
  constructor(private readonly maxDoc: number) {}
  doc(): number { return this.cur; }
  next(): number {
    if (this.cur === NO_MORE_DOCS) return NO_MORE_DOCS;
    this.cur = this.cur + 1 < this.maxDoc ? this.cur + 1 : NO_MORE_DOCS;
    return this.cur;
  }
  seek(target: number): number {
    if (this.cur >= target) return this.cur;
    this.cur = target < this.maxDoc ? target : NO_MORE_DOCS;
    return this.cur;
  }
  cost(): number { return this.maxDoc - Math.max(0, this.cur); }
  fill(out: Uint32Array): number { return fillByNext(this, out); }
}

class EmptyCursor implements DocCursor {
  private cur = -1;
  doc(): number { return this.cur; }
  next(): number { this.cur = NO_MORE_DOCS; return NO_MORE_DOCS; }
  seek(): number { this.cur = NO_MORE_DOCS; return NO_MORE_DOCS; }
  cost(): number { return 0; }
  fill(): number { this.cur = NO_MORE_DOCS; return 0; }
}

/** A fresh empty cursor (cursors are stateful, so "shared" means cheap, not a singleton). */
export function emptyCursor(): DocCursor { return new EmptyCursor(); }

/**
 * Docs present in every input: leapfrog on the cheapest, then a check of each verifying input (when at least
 * one input does not verify; otherwise the cheapest leads and the rest verify).
 */
export class IntersectCursor implements DocCursor {
  /** The leapfrogged inputs, cheapest first. */
  readonly subs: DocCursor[];
  private readonly verifiers: VerifyingCursor[];
  private cur = -1;
  constructor(inputs: DocCursor[]) {
    // Insertion sort by cost (stable, as the sort it replaces): conjunctions have a few inputs, and a search
    // builds one per segment; Array#sort's work space was a tenth of an AND search's garbage.
    const sorted = inputs.slice();
    for (let i = 1; i < sorted.length; i++) {
      const c = sorted[i], cost = c.cost();
      let j = i - 1;
      for (; j >= 0 && sorted[j].cost() > cost; j--) sorted[j + 1] = sorted[j];
      sorted[j + 1] = c;
    }
    const walk: DocCursor[] = [], verifiers: VerifyingCursor[] = [];
    for (const c of sorted) if (verifies(c)) verifiers.push(c); else walk.push(c);
    // Only verifying inputs: the cheapest leads, the others verify its docs.
    if (walk.length === 0) walk.push(verifiers.shift()!);
    this.subs = walk;
    this.verifiers = verifiers;
  }
  doc(): number { return this.cur; }
  next(): number {
    if (this.cur === NO_MORE_DOCS) return NO_MORE_DOCS;
    return this.align(this.subs[0].next());
  }
  seek(target: number): number {
    if (this.cur >= target) return this.cur;
    return this.align(this.subs[0].seek(target));
  }
  // Invariant: on return every leapfrogged sub is positioned on the returned doc (or the lead is exhausted),
  // and every verifier matches it.
  private align(target: number): number {
    const subs = this.subs, verifiers = this.verifiers;
    outer: while (target !== NO_MORE_DOCS) {
      for (let i = 1; i < subs.length; i++) {
        const d = subs[i].seek(target);
        if (d !== target) { target = subs[0].seek(d); continue outer; }
      }
      for (let i = 0; i < verifiers.length; i++) {
        if (!verifiers[i].matches(target)) { target = subs[0].next(); continue outer; }
      }
      break;
    }
    this.cur = target;
    return target;
  }
  cost(): number { return this.subs[0].cost(); }
  fill(out: Uint32Array): number { return fillByNext(this, out); }
}

/** Docs present in at least one input: a min-heap of subs keyed by their current doc. */
export class UnionCursor implements DocCursor {
  readonly subs: DocCursor[];
  /** Heap of sub indexes ordered by sub doc. */
  private readonly heap: Int32Array;
  private size = 0;
  private cur = -1;
  constructor(subs: DocCursor[]) {
    this.subs = subs;
    this.heap = new Int32Array(subs.length);
  }
  doc(): number { return this.cur; }
  next(): number {
    if (this.cur === NO_MORE_DOCS) return NO_MORE_DOCS;
    if (this.cur === -1) return this.init(-1);
    return this.seek(this.cur + 1);
  }
  seek(target: number): number {
    if (this.cur >= target) return this.cur;
    if (this.cur === -1) return this.init(target);
    const subs = this.subs, heap = this.heap;
    while (this.size > 0 && subs[heap[0]].doc() < target) {
      const d = subs[heap[0]].seek(target);
      if (d === NO_MORE_DOCS) { heap[0] = heap[--this.size]; }
      this.siftDown(0);
    }
    this.cur = this.size > 0 ? subs[heap[0]].doc() : NO_MORE_DOCS;
    return this.cur;
  }
  private init(target: number): number {
    for (let i = 0; i < this.subs.length; i++) {
      const d = target < 0 ? this.subs[i].next() : this.subs[i].seek(target);
      if (d !== NO_MORE_DOCS) { this.heap[this.size++] = i; this.siftUp(this.size - 1); }
    }
    this.cur = this.size > 0 ? this.subs[this.heap[0]].doc() : NO_MORE_DOCS;
    return this.cur;
  }
  /** Sub indexes positioned on the current doc, written to `out`; returns their count. */
  matching(out: Int32Array): number {
    let n = 0;
    const subs = this.subs, cur = this.cur;
    for (let i = 0; i < this.size; i++) if (subs[this.heap[i]].doc() === cur) out[n++] = this.heap[i];
    return n;
  }
  private siftUp(i: number): void {
    const heap = this.heap, subs = this.subs;
    const x = heap[i], dx = subs[x].doc();
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (subs[heap[p]].doc() <= dx) break;
      heap[i] = heap[p]; i = p;
    }
    heap[i] = x;
  }
  private siftDown(i: number): void {
    const heap = this.heap, subs = this.subs, n = this.size;
    if (n === 0) return;
    const x = heap[i], dx = subs[x].doc();
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && subs[heap[c + 1]].doc() < subs[heap[c]].doc()) c++;
      if (subs[heap[c]].doc() >= dx) break;
      heap[i] = heap[c]; i = c;
    }
    heap[i] = x;
  }
  cost(): number { let c = 0; for (const s of this.subs) c += s.cost(); return c; }
  fill(out: Uint32Array): number { return fillByNext(this, out); }
}

/** Docs of `include` that are in none of `exclude`. */
export class WithoutCursor implements DocCursor {
  private cur = -1;
  constructor(private readonly include: DocCursor, private readonly exclude: DocCursor) {}
  doc(): number { return this.cur; }
  next(): number {
    if (this.cur === NO_MORE_DOCS) return NO_MORE_DOCS;
    return this.skip(this.include.next());
  }
  seek(target: number): number {
    if (this.cur >= target) return this.cur;
    return this.skip(this.include.seek(target));
  }
  private skip(d: number): number {
    while (d !== NO_MORE_DOCS && this.exclude.seek(d) === d) d = this.include.next();
    this.cur = d;
    return d;
  }
  cost(): number { return this.include.cost(); }
  fill(out: Uint32Array): number { return fillByNext(this, out); }
}

/** Intersection with the empty-input short cut. */
export function intersect(subs: DocCursor[]): DocCursor {
  if (subs.length === 0) return emptyCursor();
  if (subs.length === 1) return subs[0];
  for (const s of subs) if (s instanceof EmptyCursor) return s;
  return new IntersectCursor(subs);
}

/** Union with the empty-input short cuts. */
export function union(subs: DocCursor[]): DocCursor {
  const live = subs.filter((s) => !(s instanceof EmptyCursor));
  if (live.length === 0) return emptyCursor();
  if (live.length === 1) return live[0];
  return new UnionCursor(live);
}

/** Difference with the empty-input short cuts. */
export function without(include: DocCursor, exclude: DocCursor): DocCursor {
  if (include instanceof EmptyCursor || exclude instanceof EmptyCursor) return include;
  return new WithoutCursor(include, exclude);
}

