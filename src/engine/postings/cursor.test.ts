/**
 * DocCursor conformance: every implementation and combinator is driven by random next/seek/fill programs
 * (fast-check) and compared step by step with a naive sorted-array model, through an asserting wrapper
 * that checks the contract (monotonic docs, seek never moves backwards, NO_MORE_DOCS is sticky).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { AllCursor, ArrayCursor, type DocCursor, emptyCursor, intersect, NO_MORE_DOCS, union, without } from './cursor.ts';
import { bitmapOf } from '../codec/roaring.ts';

type Op = { kind: 'next' } | { kind: 'seek'; target: number } | { kind: 'fill'; n: number };

/** The reference: a sorted set and a position. */
class Model {
  private i = -1;
  constructor(private readonly docs: number[]) {}
  doc(): number { return this.i < 0 ? -1 : this.i < this.docs.length ? this.docs[this.i] : NO_MORE_DOCS; }
  next(): number { if (this.i < this.docs.length) this.i++; return this.doc(); }
  seek(t: number): number {
    if (this.doc() >= t) return this.doc();
    do this.i++; while (this.i < this.docs.length && this.docs[this.i] < t);
    return this.doc();
  }
  fill(n: number): number[] {
    const out: number[] = [];
    let d = this.doc() === -1 ? this.next() : this.doc();
    while (out.length < n && d !== NO_MORE_DOCS) { out.push(d); d = this.next(); }
    return out;
  }
}

/** Checks the DocCursor contract around every call. */
class AssertingCursor {
  private last = -1;
  constructor(private readonly c: DocCursor) {}
  private check(d: number, op: string): number {
    assert.ok(d >= this.last, `${op} moved backwards: ${d} < ${this.last}`);
    if (this.last === NO_MORE_DOCS) assert.equal(d, NO_MORE_DOCS, `${op} after exhaustion`);
    assert.equal(this.c.doc(), d, `${op}: doc() disagrees with the returned doc`);
    this.last = d;
    return d;
  }
  next(): number { return this.check(this.c.next(), 'next'); }
  seek(t: number): number { const d = this.check(this.c.seek(t), `seek(${t})`); assert.ok(d >= t || d === this.last); return d; }
  fill(n: number): number[] { const buf = new Uint32Array(n); const k = this.c.fill(buf); this.last = Math.max(this.last, this.c.doc()); return [...buf.subarray(0, k)]; }
}

const setArb = fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { maxLength: 80 }).map((a) => a.sort((x, y) => x - y));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ kind: 'next' } as Op),
  fc.integer({ min: 0, max: 320 }).map((target) => ({ kind: 'seek', target }) as Op),
  fc.integer({ min: 1, max: 7 }).map((n) => ({ kind: 'fill', n }) as Op),
);

function run(make: (sets: number[][]) => DocCursor, expect: (sets: number[][]) => number[], nSets: number): void {
  fc.assert(fc.property(fc.array(setArb, { minLength: nSets, maxLength: nSets }), fc.array(opArb, { maxLength: 60 }), (sets, ops) => {
    const model = new Model(expect(sets));
    const cur = new AssertingCursor(make(sets));
    for (const op of ops) {
      if (op.kind === 'next') assert.equal(cur.next(), model.next());
      else if (op.kind === 'seek') assert.equal(cur.seek(op.target), model.seek(op.target));
      else assert.deepEqual(cur.fill(op.n), model.fill(op.n));
    }
    // Drain: the rest must match too.
    for (let i = 0; i < 400; i++) { const d = model.next(); assert.equal(cur.next(), d); if (d === NO_MORE_DOCS) break; }
  }), { numRuns: 300 });
}

const arr = (s: number[]): DocCursor => new ArrayCursor(Uint32Array.from(s));
const inter = (sets: number[][]): number[] => sets[0].filter((d) => sets.every((s) => s.includes(d)));
const uni = (sets: number[][]): number[] => [...new Set(sets.flat())].sort((a, b) => a - b);

test('ArrayCursor conforms', () => run((s) => arr(s[0]), (s) => s[0], 1));
test('ArrayCursor over a roaring bitmap conforms', () => run((s) => new ArrayCursor(bitmapOf(s[0]).toUint32Array()), (s) => s[0], 1));
test('AllCursor conforms', () => run((s) => new AllCursor(s[0].length), (s) => s[0].map((_, i) => i), 1));
test('intersect of 2 conforms', () => run((s) => intersect(s.map(arr)), inter, 2));
test('intersect of 3 conforms', () => run((s) => intersect(s.map(arr)), inter, 3));
test('union of 3 conforms', () => run((s) => union(s.map(arr)), uni, 3));
test('without conforms', () => run((s) => without(arr(s[0]), union([arr(s[1]), arr(s[2])])), (s) => s[0].filter((d) => !s[1].includes(d) && !s[2].includes(d)), 3));
test('nested combinators conform', () => run(
  (s) => without(union([intersect([arr(s[0]), arr(s[1])]), arr(s[2])]), arr(s[3])),
  (s) => uni([inter([s[0], s[1]]), s[2]]).filter((d) => !s[3].includes(d)), 4));

/** A verifying input (as a doc-values range): checks a doc in place, costs as much as a full scan. */
class VerifyingArray extends ArrayCursor {
  private readonly set: Set<number>;
  constructor(docs: number[]) { super(Uint32Array.from(docs)); this.set = new Set(docs); }
  matches(d: number): boolean { return this.set.has(d); }
  override cost(): number { return 1 << 20; }
}
const ver = (s: number[]): DocCursor => new VerifyingArray(s);

test('intersect with a verifying input conforms', () => run((s) => intersect([ver(s[0]), arr(s[1])]), inter, 2));
test('intersect with two verifying inputs conforms', () => run((s) => intersect([ver(s[0]), arr(s[1]), ver(s[2])]), inter, 3));
test('intersect of verifying inputs only conforms (the cheapest walks)', () => run((s) => intersect([ver(s[0]), ver(s[1])]), inter, 2));
test('a verifying input is checked, not walked: it is never positioned when another input leads', () => {
  const v = new VerifyingArray([2, 4, 6, 8]);
  const it = intersect([v, arr([1, 2, 3, 6, 9])]);
  assert.deepEqual([it.next(), it.next(), it.next()], [2, 6, NO_MORE_DOCS]);
  assert.equal(v.doc(), -1);
});

test('empty cursors short-circuit combinators', () => {
  assert.equal(intersect([arr([1, 2]), emptyCursor()]).next(), NO_MORE_DOCS);
  assert.equal(union([emptyCursor(), emptyCursor()]).next(), NO_MORE_DOCS);
  const w = without(arr([1, 2]), emptyCursor());
  assert.equal(w.next(), 1);
});
