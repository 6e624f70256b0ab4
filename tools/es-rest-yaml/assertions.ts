/**
 * The DSL's assertions on the last response: match, is_true, is_false, length, lt/gt/lte/gte, contains.
 * Each throws an AssertionFailure naming the step; the report shows the first one per file.
 */
import { isDeepStrictEqual } from 'node:util';
import { isRegexLiteral, javaCommentsRegex } from './java-regex.ts';
import { lookup, MISSING } from './lookup.ts';
import type { Stash } from './stash.ts';

export class AssertionFailure extends Error {}

const show = (v: unknown): string => (v === MISSING ? '<missing>' : JSON.stringify(v)?.slice(0, 300) ?? String(v));

function fail(kind: string, path: string, detail: string): never {
  throw new AssertionFailure(`${kind} [${path}]: ${detail}`);
}

export function assertMatch(body: unknown, path: string, expectedRaw: unknown, stash: Stash): void {
  const actual = lookup(body, path, stash);
  const expected = stash.resolve(expectedRaw);
  if (isRegexLiteral(expected)) {
    if (actual === MISSING || actual === null) fail('match', path, `expected ${expected} but the value is missing`);
    const text = typeof actual === 'string' ? actual : JSON.stringify(actual);
    if (!javaCommentsRegex(expected).test(text)) fail('match', path, `${show(text)} does not match ${expected}`);
    return;
  }
  if (expected === null) {
    if (actual !== MISSING && actual !== null) fail('match', path, `expected null, got ${show(actual)}`);
    return;
  }
  if (!looseEqual(actual, expected)) fail('match', path, `expected ${show(expected)}, got ${show(actual)}`);
}

// ES compares numbers by value whatever their Java type (1 == 1.0); everything else is exact.
function looseEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => looseEqual(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && kb.every((k) => Object.prototype.hasOwnProperty.call(a, k)
      && looseEqual((a as any)[k], (b as any)[k]));
  }
  return isDeepStrictEqual(a, b);
}

function truthy(v: unknown): boolean {
  if (v === MISSING || v === null || v === undefined) return false;
  const s = typeof v === 'string' ? v : typeof v === 'object' ? 'object' : String(v);
  return s !== '' && s.toLowerCase() !== 'false' && s !== '0';
}

export function assertTrue(body: unknown, path: string, stash: Stash, want: boolean): void {
  const v = lookup(body, path, stash);
  if (truthy(v) !== want) fail(want ? 'is_true' : 'is_false', path, `value is ${show(v)}`);
}

export function assertLength(body: unknown, path: string, n: unknown, stash: Stash): void {
  const v = lookup(body, path, stash);
  const len = Array.isArray(v) || typeof v === 'string' ? v.length : v && typeof v === 'object' ? Object.keys(v).length : -1;
  if (len !== Number(stash.resolve(n))) fail('length', path, `expected ${n}, got ${len} (${show(v)})`);
}

export function assertCompare(op: 'lt' | 'gt' | 'lte' | 'gte', body: unknown, path: string, limitRaw: unknown, stash: Stash): void {
  const v = lookup(body, path, stash);
  const limit = Number(stash.resolve(limitRaw));
  const x = Number(v);
  const ok = typeof v !== 'object' && !Number.isNaN(x)
    && (op === 'lt' ? x < limit : op === 'gt' ? x > limit : op === 'lte' ? x <= limit : x >= limit);
  if (!ok) fail(op, path, `${show(v)} ${op} ${limit} does not hold`);
}

export function assertContains(body: unknown, path: string, expectedRaw: unknown, stash: Stash): void {
  const v = lookup(body, path, stash);
  const expected = stash.resolve(expectedRaw);
  if (!Array.isArray(v)) fail('contains', path, `not a list: ${show(v)}`);
  const hit = v.some((item) => looseEqual(item, expected) || (item && typeof item === 'object' && expected && typeof expected === 'object'
    && Object.entries(expected).every(([k, x]) => looseEqual((item as any)[k], x))));
  if (!hit) fail('contains', path, `${show(expected)} not in ${show(v)}`);
}
