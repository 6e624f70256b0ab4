/**
 * Term vectors (`_termvectors`): the terms of one document's fields with their frequencies, positions and
 * offsets, and optionally the shard's statistics for each field and term.
 *
 * ES 6.8 reads stored term vectors for fields mapped with `term_vector` and generates them on the fly (an
 * in-memory index of the source values) for other requested fields; Tessera stores none, so every vector
 * is generated here from the source. What ES would have stored still decides what is shown: a field reached
 * through its `term_vector` mapping shows positions/offsets only as that mapping records them, while a
 * generated one has both. Statistics come from the shard's reader (deleted but unmerged docs included,
 * Lucene's rule); fields indexed without frequencies (keyword) report `-1` for total term frequencies, as
 * Lucene 7 does.
 */
import type { AnalyzerRegistry } from '../analysis/analyzers.ts';
import { TokenBuf } from '../analysis/token-buf.ts';
import { POSITION_INCREMENT_GAP } from '../indexing/doc-indexer.ts';
import type { FieldInfo, FieldInfos } from '../indexing/field-infos.ts';
import type { IndexReader } from './index-reader.ts';
import { valuesAt } from './source-filter.ts';

export interface TermVectorsOptions {
  /** Requested fields (wildcards allowed); null = the fields mapped with `term_vector` (all string fields of an artificial doc). */
  fields: string[] | null;
  positions: boolean;
  offsets: boolean;
  payloads: boolean;
  termStatistics: boolean;
  fieldStatistics: boolean;
  /** Field → analyzer name replacing the field's own (forces generation for that field). */
  perFieldAnalyzer: Record<string, string> | null;
}

/** One term of a field's vector; `docFreq`/`ttf` are -1 unless term statistics were asked for. */
export interface TermVectorTerm {
  term: string;
  termFreq: number;
  docFreq: number;
  ttf: number;
  /** Per occurrence; null when the vector does not carry them. */
  positions: number[] | null;
  startOffsets: number[] | null;
  endOffsets: number[] | null;
}

export interface TermVectorField {
  field: string;
  /** Null unless field statistics were asked for. */
  stats: { sumDocFreq: number; docCount: number; sumTtf: number } | null;
  terms: TermVectorTerm[];
}

/** The vectors of `source`'s fields, in field-name order, terms in UTF-8 byte order. */
export function termVectors(reader: IndexReader, infos: FieldInfos, analyzers: AnalyzerRegistry, source: Record<string, unknown>,
  artificial: boolean, o: TermVectorsOptions): TermVectorField[] {
  const out: TermVectorField[] = [];
  for (const [fi, stored] of selectFields(infos, artificial, o)) {
    const values = valuesOf(fi, source, artificial);
    if (values.length === 0) continue;
    const tokens = new TokenBuf();
    const analyzerName = o.perFieldAnalyzer?.[fi.path] ?? (fi.type === 'text' ? fi.analyzer : 'keyword');
    const analyzer = analyzers.get(analyzerName) ?? analyzers.get('standard')!;
    analyzer.analyzeValues(values, tokens, fi.type === 'text' ? POSITION_INCREMENT_GAP : 0);
    if (tokens.length === 0) continue;
    // A stored vector records only what its mapping asks for; a generated one has positions and offsets.
    const tv = stored && !o.perFieldAnalyzer?.[fi.path] ? fi.termVector : 'with_positions_offsets';
    const withPos = o.positions && tv.includes('positions');
    const withOffsets = o.offsets && tv.includes('offsets');
    out.push({ field: fi.path, stats: o.fieldStatistics ? fieldStats(reader, fi.path) : null,
      terms: collectTerms(reader, fi.path, tokens, withPos, withOffsets, o.termStatistics) });
  }
  return out.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}

/** [field, has a stored vector] pairs to compute: text and keyword fields only, as ES's `isValidField`. */
function selectFields(infos: FieldInfos, artificial: boolean, o: TermVectorsOptions): [FieldInfo, boolean][] {
  const valid = (fi: FieldInfo | undefined): fi is FieldInfo => !!fi && fi.indexed && (fi.type === 'text' || fi.type === 'keyword');
  const stored = (fi: FieldInfo): boolean => fi.termVector !== 'no' && fi.termVector !== 'false';
  const picked = new Map<string, FieldInfo>();
  if (o.fields) {
    for (const f of o.fields) for (const p of infos.expand(f)) { const fi = infos.get(p); if (valid(fi)) picked.set(p, fi); }
  } else {
    for (const fi of infos.fields.values()) {
      if (valid(fi) && (artificial || stored(fi) || o.perFieldAnalyzer?.[fi.path] !== undefined)) picked.set(fi.path, fi);
    }
  }
  return [...picked.values()].map((fi) => [fi, stored(fi)]);
}

/**
 * The string values ES would analyse. A stored doc's generated vectors read the field's own path in the
 * source, so a multi-field (`title.keyword`) has none there; an artificial doc is parsed like an indexed
 * doc, multi-fields included.
 */
function valuesOf(fi: FieldInfo, source: Record<string, unknown>, artificial: boolean): string[] {
  const path = artificial ? fi.sourcePath : fi.path;
  const raw = valuesAt(source, path);
  const out: string[] = [];
  for (const v of raw) {
    if (typeof v === 'object') continue;
    const s = String(v);
    if (fi.type === 'keyword' && s.length > fi.ignoreAbove) continue;
    out.push(s);
  }
  return out;
}

function fieldStats(reader: IndexReader, field: string): { sumDocFreq: number; docCount: number; sumTtf: number } {
  let sumDocFreq = 0, docCount = 0, sumTtf = 0, freqs = true;
  for (const s of reader.segments) {
    const f = s.field(field);
    if (!f) continue;
    sumDocFreq += f.sumDocFreq; docCount += f.docCount; sumTtf += f.sumTotalTermFreq;
    freqs &&= f.hasFreqs;
  }
  return { sumDocFreq, docCount, sumTtf: freqs ? sumTtf : -1 };
}

/** Groups the tokens by term (UTF-8 byte order, as Lucene's term dictionary). */
function collectTerms(reader: IndexReader, field: string, tokens: TokenBuf, withPos: boolean, withOffsets: boolean, termStats: boolean): TermVectorTerm[] {
  const byTerm = new Map<string, number[]>();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens.terms[i];
    let list = byTerm.get(t);
    if (!list) { list = []; byTerm.set(t, list); }
    list.push(i);
  }
  const names = [...byTerm.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const out: TermVectorTerm[] = [];
  for (const term of names) {
    const idx = byTerm.get(term)!;
    let docFreq = -1, ttf = -1;
    if (termStats) ({ docFreq, ttf } = termStatistics(reader, field, term));
    out.push({
      term, termFreq: idx.length, docFreq, ttf,
      positions: withPos ? idx.map((i) => tokens.positions[i]) : null,
      startOffsets: withOffsets ? idx.map((i) => tokens.starts[i]) : null,
      endOffsets: withOffsets ? idx.map((i) => tokens.ends[i]) : null,
    });
  }
  return out;
}

function termStatistics(reader: IndexReader, field: string, term: string): { docFreq: number; ttf: number } {
  let docFreq = 0, ttf = 0, freqs = true;
  for (const s of reader.segments) {
    const f = s.field(field);
    const t = f ? f.termId(term) : -1;
    if (t < 0) continue;
    docFreq += f!.docFreq(t); ttf += f!.totalTermFreq(t);
    freqs &&= f!.hasFreqs;
  }
  return { docFreq, ttf: freqs ? ttf : -1 };
}
