import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WindowSumScorer } from './window-scorer.ts';
import { TermScorer } from './scorers.ts';
import { bm25Score, K1, normCache } from '../postings/bm25.ts';
import { NO_MORE_DOCS } from '../postings/cursor.ts';
import type { TermPostings } from '../postings/segment.ts';
import { mulberry32 } from '../../../bench/support/mulberry32.ts';

const MAX_DOC = 20_000;

function postings(r: () => number, df: number, withFreqs: boolean): TermPostings {
  const set = new Set<number>();
  while (set.size < df) set.add(Math.floor(r() * MAX_DOC));
  const docs = Uint32Array.from(set).sort();
  const freqs = withFreqs ? Uint32Array.from(docs, () => 1 + Math.floor(r() * r() * 6)) : null;
  return { docs, start: 0, end: docs.length, freqs, posStart: null, positions: null };
}

type Hit = [doc: number, score: number];

/** Every hit `collectAll` gives its sink, in order. */
function collect(terms: TermPostings[], weights: number[], norms: Uint8Array | null, minMatch: number, live: Uint8Array | null, parentOf: Int32Array | null, maxDoc: number): { hits: Hit[]; n: number } {
  const cache = norms ? normCache(9.5) : null;
  const subs = terms.map((t, i) => new TermScorer(t, norms, weights[i], cache));
  const hits: Hit[] = [];
  const ws = new WindowSumScorer(subs, minMatch);
  const n = ws.collectAll(100, parentOf, live, { collect: (doc, score) => hits.push([doc, score]) }, maxDoc);
  assert.equal(ws.doc(), NO_MORE_DOCS);
  return { hits, n };
}

/** The hits by definition: per doc with at least `minMatch` clauses, their BM25 scores summed in clause order. */
function reference(terms: TermPostings[], weights: number[], norms: Uint8Array | null, minMatch: number, live: Uint8Array | null, parentOf: Int32Array | null): { hits: Hit[]; n: number } {
  const cache = normCache(9.5);
  const sums = new Map<number, { sum: number; count: number }>();
  terms.forEach((t, i) => {
    for (let p = t.start; p < t.end; p++) {
      const d = t.docs[p];
      const e = sums.get(d) ?? { sum: 0, count: 0 };
      e.sum += bm25Score(weights[i], t.freqs ? t.freqs[p] : 1, norms ? cache[norms[d]] : K1);
      e.count++;
      sums.set(d, e);
    }
  });
  const hits: Hit[] = [...sums].filter(([d, e]) => e.count >= minMatch && (!parentOf || parentOf[d] === -1) && (!live || live[d] === 1))
    .sort((a, b) => a[0] - b[0]).map(([d, e]) => [100 + d, Math.fround(e.sum)]);
  return { hits, n: hits.length };
}

test('sparse term clauses merged give the windows\' docs and score bits, in the same order', () => {
  const r = mulberry32(7);
  let merged = 0;
  for (let round = 0; round < 60; round++) {
    const n = 2 + (round % 3);
    const withFreqs = round % 5 !== 0;
    const terms = Array.from({ length: n }, () => postings(r, 1 + Math.floor(r() * 1200), withFreqs));
    const weights = terms.map(() => Math.fround(0.5 + r() * 4));
    const norms = round % 7 === 0 ? null : Uint8Array.from({ length: MAX_DOC }, () => 1 + Math.floor(r() * 200));
    const live = round % 3 === 0 ? Uint8Array.from({ length: MAX_DOC }, () => (r() < 0.9 ? 1 : 0)) : null;
    const parentOf = round % 4 === 1 ? Int32Array.from({ length: MAX_DOC }, (_, d) => (d % 5 === 4 ? -1 : d + 1)) : null;
    const minMatch = 1 + (round % n);
    // maxDoc 0 leaves every clause too dense to merge: the windows' answer.
    const byWindows = collect(terms, weights, norms, minMatch, live, parentOf, 0);
    const byMerge = collect(terms, weights, norms, minMatch, live, parentOf, MAX_DOC);
    assert.deepEqual(byMerge, byWindows, `round ${round}`);
    assert.deepEqual(byMerge, reference(terms, weights, norms, minMatch, live, parentOf), `round ${round}`);
    assert.equal(byMerge.n, byMerge.hits.length);
    if (byMerge.n > 0) merged++;
  }
  assert.ok(merged > 40);
});

test('clauses denser than a quarter of the segment, or more than four, are collected by windows with the same hits', () => {
  const r = mulberry32(11);
  const dense = [postings(r, 4000, true), postings(r, 2000, true)];
  const many = Array.from({ length: 5 }, () => postings(r, 300, true));
  for (const terms of [dense, many]) {
    const w = terms.map(() => 1.5);
    assert.deepEqual(collect(terms, w, null, 1, null, null, MAX_DOC), reference(terms, w, null, 1, null, null));
  }
});
