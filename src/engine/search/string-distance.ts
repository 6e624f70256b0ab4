/**
 * The term suggester's `string_distance` choices other than `internal`, as Lucene's spell-check distances score
 * them (similarities in [0, 1], computed in float): `levenshtein` (UTF-16 units; edits over the longer length),
 * `damerau_levenshtein` (code points, a transposition is one edit; edits over the shorter length) and
 * `jaro_winkler` (Winkler's prefix bonus above a 0.7 Jaro score, prefix capped by 1 / the longer length).
 */
import { editDistance } from './fuzzy.ts';

export type StringDistanceName = 'internal' | 'levenshtein' | 'damerau_levenshtein' | 'jaro_winkler';

/** Request spellings: ES 6.8 still reads the old `levenstein`. */
export const STRING_DISTANCES: Record<string, StringDistanceName> = {
  internal: 'internal', levenshtein: 'levenshtein', levenstein: 'levenshtein', damerau_levenshtein: 'damerau_levenshtein', jaro_winkler: 'jaro_winkler',
};

const f = Math.fround;

const units = (s: string): number[] => { const out: number[] = []; for (let i = 0; i < s.length; i++) out.push(s.charCodeAt(i)); return out; };
const codePoints = (s: string): number[] => { const out: number[] = []; for (const c of s) out.push(c.codePointAt(0)!); return out; };

/** Similarity of `target` (the suggest token) and `other` (a dictionary term) under `name` (not `internal`). */
export function stringDistance(name: StringDistanceName, target: string, other: string): number {
  if (name === 'jaro_winkler') return jaroWinkler(target, other);
  const damerau = name === 'damerau_levenshtein';
  const a = damerau ? codePoints(target) : units(target), b = damerau ? codePoints(other) : units(other);
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 1 : 0;
  const longest = Math.max(a.length, b.length);
  const d = editDistance(a, b, longest, damerau);
  return f(1 - f(d / (damerau ? Math.min(a.length, b.length) : longest)));
}

function jaroWinkler(s1: string, s2: string): number {
  const [max, min] = s1.length > s2.length ? [s1, s2] : [s2, s1];
  const range = Math.max(Math.floor(max.length / 2) - 1, 0);
  const matchAt = new Int32Array(min.length).fill(-1);
  const taken = new Uint8Array(max.length);
  let matches = 0;
  for (let i = 0; i < min.length; i++) {
    for (let j = Math.max(i - range, 0), end = Math.min(i + range + 1, max.length); j < end; j++) {
      if (taken[j] === 0 && min.charCodeAt(i) === max.charCodeAt(j)) { matchAt[i] = j; taken[j] = 1; matches++; break; }
    }
  }
  if (matches === 0) return 0;
  // Matched characters of each string in order; half the mismatched positions are transpositions.
  let half = 0;
  for (let i = 0, j = 0; i < min.length; i++) {
    if (matchAt[i] === -1) continue;
    while (taken[j] === 0) j++;
    if (min.charCodeAt(i) !== max.charCodeAt(j)) half++;
    j++;
  }
  const transpositions = Math.floor(half / 2);
  let prefix = 0;
  while (prefix < min.length && s1.charCodeAt(prefix) === s2.charCodeAt(prefix)) prefix++;
  const m = matches;
  const j = f(f(f(f(m / s1.length) + f(m / s2.length)) + f((m - transpositions) / m)) / 3);
  return j < 0.7 ? j : f(j + f(f(Math.min(f(0.1), f(1 / max.length)) * prefix) * f(1 - j)));
}
