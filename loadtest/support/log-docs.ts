/**
 * The seeded log documents of the documents engine's figures (loadtest/documents-scale.ts, and the in-process
 * benches that must see the same data): ~390 bytes of JSON each, `title` (5 words) and `body` (38 words) drawn
 * Zipf(1) from a 50,000-word vocabulary, `level`/`host` keywords, a `bytes` long and a `ts` date in October 2026.
 */
import { mulberry32 } from '../../bench/support/mulberry32.ts';

export interface LogVocabulary {
  /** Words by Zipf rank (rank 0 most frequent). */
  readonly words: readonly string[];
  /** Cumulative Zipf weights, normalised: `cdf[i]` the probability of a rank ≤ i. */
  readonly cdf: Float64Array;
}

const VOCAB = 50_000;
const LEVELS = ['info', 'info', 'info', 'info', 'warn', 'error', 'debug'];
export const LOG_T0 = Date.UTC(2026, 9, 1);
export const LOG_SPAN_MS = 30 * 86_400_000;

/** The vocabulary (always the same: seed 42). */
export function logVocabulary(): LogVocabulary {
  const rnd = mulberry32(42);
  const words: string[] = [];
  for (let i = 0; i < VOCAB; i++) {
    let w = '';
    const len = 3 + Math.floor(rnd() * 7);
    for (let j = 0; j < len; j++) w += String.fromCharCode(97 + Math.floor(rnd() * 26));
    words.push(w);
  }
  // Zipf(1) by inverse CDF on cumulative harmonic weights.
  const cdf = new Float64Array(VOCAB);
  let s = 0;
  for (let i = 0; i < VOCAB; i++) { s += 1 / (i + 1); cdf[i] = s; }
  for (let i = 0; i < VOCAB; i++) cdf[i] /= s;
  return { words, cdf };
}

export function zipfWord(v: LogVocabulary, r: () => number): string {
  const u = r();
  let lo = 0, hi = v.cdf.length - 1;
  while (lo < hi) { const m = (lo + hi) >>> 1; if (v.cdf[m] < u) lo = m + 1; else hi = m; }
  return v.words[lo];
}

/** One document's JSON, drawing from `r`. */
export function logDocument(v: LogVocabulary, r: () => number): string {
  const title: string[] = [], body: string[] = [];
  for (let k = 0; k < 5; k++) title.push(zipfWord(v, r));
  for (let k = 0; k < 38; k++) body.push(zipfWord(v, r));
  return JSON.stringify({
    title: title.join(' '), body: body.join(' '), level: LEVELS[Math.floor(r() * LEVELS.length)],
    host: `host-${String(Math.floor(r() * 200)).padStart(3, '0')}`, bytes: Math.floor(r() * 1_000_000),
    ts: new Date(LOG_T0 + Math.floor(r() * LOG_SPAN_MS)).toISOString(),
  });
}
