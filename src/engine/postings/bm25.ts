/**
 * Lucene 7 BM25Similarity in float32 (elasticsearch.md §4.4): k1 = 1.2, b = 0.75, `(k1 + 1)` kept in the
 * numerator, no coord, no queryNorm. Every intermediate is rounded with Math.fround where Java rounds.
 */
import { NORM_LENGTH_TABLE } from './norms.ts';

export const K1 = Math.fround(1.2);
export const B = Math.fround(0.75);
const f = Math.fround;

/** idf = ln(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)), computed in double then cast. */
export function idf(docFreq: number, docCount: number): number {
  return f(Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)));
}

/** avgdl = sumTotalTermFreq / docCount as float (1 when there are no tokens). */
export function avgFieldLength(sumTotalTermFreq: number, docCount: number): number {
  if (sumTotalTermFreq <= 0 || docCount <= 0) return 1;
  return f(sumTotalTermFreq / docCount);
}

/** Lucene's per-weight cache: k1 * ((1 - b) + b * dl / avgdl) for every norm byte. */
export function normCache(avgdl: number): Float32Array {
  const cache = new Float32Array(256);
  for (let i = 0; i < 256; i++) {
    cache[i] = f(K1 * f(f(1 - B) + f(f(B * NORM_LENGTH_TABLE[i]) / avgdl)));
  }
  return cache;
}

/** Lucene 7's `weightValue` = (idf * boost) * (k1 + 1). */
export function weightValue(idfValue: number, boost: number): number {
  return f(f(idfValue * boost) * f(K1 + 1));
}

/** score = weightValue * freq / (freq + norm), evaluated left to right in float as Java does. */
export function bm25Score(wv: number, freq: number, norm: number): number {
  return f(f(wv * freq) / f(freq + norm));
}
