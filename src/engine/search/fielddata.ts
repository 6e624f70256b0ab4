/**
 * Fielddata for `text` fields mapped with `fielddata: true`: the field's postings uninverted into per-doc term
 * ordinals (the analysed terms, in dictionary order), so sorting and aggregations read a text field the way they
 * read a keyword's doc values. As Lucene's field cache, a segment's columns are built on first use and kept while
 * the segment lives; their size is what `_cat/fielddata` and the `fielddata` stats report.
 *
 * The cache is per worker thread and keyed by the immutable segment objects, so it needs no invalidation: a
 * merged-away segment and its columns are collected together. Not re-entrant across threads (none share it).
 */
import { OrdinalDocValues, type Segment } from '../postings/segment.ts';

interface Loaded { column: OrdinalDocValues; bytes: number }

let cache = new WeakMap<Segment, Map<string, Loaded>>();

/** The uninverted column of text field `field` in `seg` (built once per segment), or null when it has no terms. */
export function textFielddata(seg: Segment, field: string): OrdinalDocValues | null {
  let perSeg = cache.get(seg);
  const hit = perSeg?.get(field);
  if (hit) return hit.column;
  const fp = seg.field(field);
  if (!fp || fp.numTerms === 0) return null;
  const maxDoc = seg.maxDoc;
  // Pass 1: terms per doc; pass 2: each doc's ordinals, ascending because terms are visited in order.
  const start = new Uint32Array(maxDoc + 1);
  for (let t = 0; t < fp.numTerms; t++) {
    const p = fp.postings(t, false);
    for (let i = p.start; i < p.end; i++) start[p.docs[i] + 1]++;
  }
  for (let d = 0; d < maxDoc; d++) start[d + 1] += start[d];
  const ords = new Uint32Array(start[maxDoc]);
  const fill = start.slice(0, maxDoc);
  for (let t = 0; t < fp.numTerms; t++) {
    const p = fp.postings(t, false);
    for (let i = p.start; i < p.end; i++) ords[fill[p.docs[i]]++] = t;
  }
  const column = new OrdinalDocValues(start, ords, { size: fp.numTerms, term: (o: number) => fp.term(o) });
  if (!perSeg) { perSeg = new Map(); cache.set(seg, perSeg); }
  perSeg.set(field, { column, bytes: start.byteLength + ords.byteLength });
  return column;
}

/** The keyword doc values of `field`, or the text field's fielddata when `text` (sorting and aggregations). */
export function stringColumn(seg: Segment, field: string, text: boolean): OrdinalDocValues | null {
  return text ? textFielddata(seg, field) : seg.ordinals(field);
}

/** Bytes of fielddata loaded per field over `segments`. */
export function fielddataBytes(segments: readonly Segment[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of segments) {
    const perSeg = cache.get(s);
    if (perSeg) for (const [f, l] of perSeg) out.set(f, (out.get(f) ?? 0) + l.bytes);
  }
  return out;
}

/**
 * Drops every loaded column of this thread (`_cache/clear`: the caches are per worker, shared by all its shards,
 * like the block cache cleared with them). A clear is not an eviction: ES counts only memory-pressure evictions.
 */
export function clearFielddata(): void {
  cache = new WeakMap();
}
