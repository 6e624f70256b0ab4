/**
 * Buffers documents added since the last refresh and inverts them into an immutable `MemorySegment`.
 * Docs are numbered 0,1,2… in arrival order; a nested block is added children first, then its root.
 */
import { encodeNorm } from './norms.ts';
import { NumericDocValues, OrdinalDocValues } from './segment.ts';
import { ArrayOrdinalTerms, MemoryFieldPostings, MemorySegment } from './memory-segment.ts';
import type { TokenBuf } from '../analysis/token-buf.ts';
import { TermHash } from './term-hash.ts';
import { SortScratch, sortTerms, sortTermsInPlace } from './sort-terms.ts';
import { grown } from '../codec/typed-grow.ts';
import { ByteColumn } from '../codec/byte-column.ts';
import { IdTable } from './id-table.ts';

/** A buffer keeps its predecessor's term hash while the hash holds at most this many times the terms it used. */
const KEEP_VOCABULARY = 2;

/**
 * One field's buffered tokens as a flat stream (term id, doc, position) in growable typed arrays, inverted by
 * a counting sort at build time: far less allocation than per-term JS arrays.
 */
class FieldAcc {
  readonly hash: TermHash;
  tokTerm: Int32Array;
  tokDoc: Int32Array;
  tokPos: Int32Array;
  n = 0;
  /** Field length per doc for norms (grown on demand). */
  lengths: Int32Array;
  /** Terms of the hash this buffer's tokens used (set by its build). */
  termsUsed = 0;
  /**
   * `prev`: the same field's accumulator in the previous buffer, already built into its segment, whose
   * columns and term table this one takes over (see `SegmentBuilder`). Its terms and ids are kept while that
   * buffer used at least half of them (KEEP_VOCABULARY): on a bulk load most of a buffer's tokens are terms the
   * last buffer had, and inserting its whole vocabulary again into an empty hash was a third of the term
   * lookups' time. A hash that gathers more unused terms than that starts empty, so it stays bounded.
   */
  constructor(readonly withFreqs: boolean, readonly withNorms: boolean, prev?: FieldAcc) {
    if (prev) {
      this.tokTerm = prev.tokTerm; this.tokDoc = prev.tokDoc; this.tokPos = prev.tokPos;
      this.lengths = prev.lengths.fill(0);
      this.hash = prev.hash.size <= KEEP_VOCABULARY * prev.termsUsed ? prev.hash.carriedOver() : prev.hash.cleared();
    } else {
      this.tokTerm = new Int32Array(1024); this.tokDoc = new Int32Array(1024); this.tokPos = new Int32Array(1024);
      this.lengths = new Int32Array(256);
      this.hash = new TermHash();
    }
  }

  get terms(): string[] { return this.hash.terms; }

  termId(t: string): number { return this.hash.add(t); }

  add(term: number, doc: number, pos: number): void {
    if (this.n === this.tokTerm.length) {
      this.tokTerm = grown(this.tokTerm, this.n * 2); this.tokDoc = grown(this.tokDoc, this.n * 2); this.tokPos = grown(this.tokPos, this.n * 2);
    }
    const i = this.n++;
    this.tokTerm[i] = term; this.tokDoc[i] = doc; this.tokPos[i] = pos;
  }

  addLength(doc: number, len: number): void {
    if (doc >= this.lengths.length) this.lengths = grown(this.lengths, Math.max(doc + 1, this.lengths.length * 2));
    this.lengths[doc] += len;
  }
}

/**
 * A keyword column's (doc, term id) pairs in arrival order, in growable typed arrays, its distinct values in a
 * term hash: the buffer keeps one string per distinct value, not one per document (a per-doc string array kept
 * every parsed value alive until the refresh, and the garbage collector copied them all out of the young
 * generation).
 */
class OrdinalAcc {
  readonly hash = new TermHash();
  docs: Int32Array = new Int32Array(256);
  ids: Int32Array = new Int32Array(256);
  n = 0;

  add(doc: number, value: string): void {
    if (this.n === this.docs.length) {
      this.docs = grown(this.docs, this.n * 2);
      this.ids = grown(this.ids, this.n * 2);
    }
    this.docs[this.n] = doc;
    this.ids[this.n++] = this.hash.add(value);
  }
}

/** Docs with a value in a field, in arrival order, in a growable typed array (the `exists` column). */
class DocsAcc {
  docs: Int32Array = new Int32Array(256);
  n = 0;

  /** Adds `doc` unless it is the last one added (a doc's values arrive together). */
  add(doc: number): void {
    if (this.n > 0 && this.docs[this.n - 1] === doc) return;
    if (this.n === this.docs.length) this.docs = grown(this.docs, this.n * 2);
    this.docs[this.n++] = doc;
  }
}

/** A numeric column's (doc, value) pairs in arrival order, in growable typed arrays (no JS array growth per value). */
class NumericAcc {
  docs: Int32Array = new Int32Array(256);
  values: Float64Array = new Float64Array(256);
  n = 0;

  add(doc: number, value: number): void {
    if (this.n === this.docs.length) {
      this.docs = grown(this.docs, this.n * 2);
      this.values = grown(this.values, this.n * 2);
    }
    this.docs[this.n] = doc;
    this.values[this.n++] = value;
  }
}

export class SegmentBuilder {
  private maxDoc = 0;
  /** `_id` per root doc, and which root holds each id's live copy (see `IdTable`). */
  private readonly ids: ByteColumn;
  private readonly liveIds: IdTable;
  /** Per doc (typed, grown together in `addDoc`): its nested parent (−1: none), nested path and version metadata. */
  private parentOf = new Int32Array(256).fill(-1);
  private pathIds = new Uint16Array(256);
  /** Nested paths by id (0: the root path ''). */
  private readonly pathNames: string[] = [''];
  private readonly pathIndex = new Map<string, number>([['', 0]]);
  private readonly fields = new Map<string, FieldAcc>();
  private readonly numeric = new Map<string, NumericAcc>();
  private readonly ordinals = new Map<string, OrdinalAcc>();
  private readonly exists = new Map<string, DocsAcc>();
  private readonly sources: ByteColumn;
  /** Custom routing of the root docs that have one (few do). */
  private readonly routings = new Map<number, string>();
  private seqNos = new Float64Array(256);
  private versions = new Float64Array(256);
  private primaryTerms = new Float64Array(256);
  /** Bytes buffered so far (sources and tokens), for the index buffer budget. */
  bufferedBytes = 0;

  /**
   * `prev`: the previous buffer, once built into its segment (which keeps none of these columns). This one
   * takes over its per-field token columns and term tables, and its per-doc columns, instead of growing new
   * ones from a kilobyte: on a bulk load every refresh grew each column through about ten doublings and
   * rehashed each term table as often, and each fresh multi-megabyte array is new memory for the kernel to
   * fault in (page faults are dear on this project's virtual machines).
   */
  constructor(prev: SegmentBuilder | null = null) {
    this.prevFields = prev?.fields ?? null;
    if (prev) {
      this.parentOf = prev.parentOf.fill(-1);
      this.pathIds = prev.pathIds.fill(0);
      this.seqNos = prev.seqNos; this.versions = prev.versions; this.primaryTerms = prev.primaryTerms;
    }
    this.ids = new ByteColumn(64 * 1024, prev?.ids);
    this.sources = new ByteColumn(256 * 1024, prev?.sources);
    this.liveIds = new IdTable(this.ids, prev?.maxDoc ?? 0);
  }

  /**
   * The previous buffer's accumulators not yet taken over: each leaves the map as this buffer takes it, so
   * the old one's term strings are not kept alive with it.
   */
  private readonly prevFields: Map<string, FieldAcc> | null;

  get docCount(): number { return this.maxDoc; }

  /** Starts a new doc and returns its local id. `id` is '' for nested children. */
  addDoc(id: string, nestedPath: string): number {
    const d = this.maxDoc++;
    if (d === this.parentOf.length) this.growDocs();
    if (id !== '') this.ids.setString(d, id);
    if (nestedPath !== '') {
      let p = this.pathIndex.get(nestedPath);
      if (p === undefined) { p = this.pathNames.push(nestedPath) - 1; this.pathIndex.set(nestedPath, p); }
      this.pathIds[d] = p;
    }
    this.bufferedBytes += 64 + id.length * 2;
    return d;
  }

  private growDocs(): void {
    const n = this.parentOf.length;
    this.parentOf = grown(this.parentOf, n * 2).fill(-1, n);
    this.pathIds = grown(this.pathIds, n * 2);
    this.seqNos = grown(this.seqNos, n * 2); this.versions = grown(this.versions, n * 2); this.primaryTerms = grown(this.primaryTerms, n * 2);
  }

  /** Stored fields and version metadata of a root doc. */
  setStored(doc: number, source: Uint8Array, routing: string | null, version: number, seqNo: number, primaryTerm: number): void {
    this.sources.set(doc, source);
    if (routing !== null) this.routings.set(doc, routing);
    this.bufferedBytes += source.byteLength;
    this.seqNos[doc] = seqNo;
    this.versions[doc] = version;
    this.primaryTerms[doc] = primaryTerm;
  }

  /** The buffered root doc holding the live copy of `id`, or −1. */
  liveDoc(id: string): number { return this.liveIds.get(id); }

  /** Makes root doc `doc` (added with `id`) the live copy of `id`. */
  setLive(id: string, doc: number): void { this.liveIds.set(id, doc); }

  /** Marks the buffered live copy of `id` deleted; returns its root doc, or −1 when the buffer has none. */
  deleteLive(id: string): number { return this.liveIds.delete(id); }

  /** Version data of a buffered root doc (real-time GET and version checks before a refresh). */
  seqNo(doc: number): number { return this.seqNos[doc]; }
  version(doc: number): number { return this.versions[doc]; }
  primaryTerm(doc: number): number { return this.primaryTerms[doc]; }

  setParent(child: number, parent: number): void { this.parentOf[child] = parent; }

  isChild(doc: number): boolean { return this.parentOf[doc] !== -1; }

  /** Adds analysed tokens of one value of a text field; `tokens` holds that value's tokens only. */
  addTokens(doc: number, field: string, tokens: TokenBuf, withNorms = true): void {
    const fa = this.field(field, true, withNorms);
    const n = tokens.length;
    // discount_overlaps: tokens at the same position as the previous one do not count.
    let len = 0, prev = -1;
    for (let i = 0; i < n; i++) {
      const p = tokens.positions[i];
      fa.add(fa.termId(tokens.terms[i]), doc, p);
      if (p !== prev) len++;
      prev = p;
    }
    this.bufferedBytes += n * 12;
    fa.addLength(doc, len);
    if (n > 0) this.markExists(doc, field);
  }

  /**
   * As `addTokens` for tokens that are spans of `text` to be lowercased (`Analyzer.analyzeLowerSpans`): the
   * terms are looked up from the text, so a term already buffered costs no string.
   */
  addLowerSpans(doc: number, field: string, text: string, tokens: TokenBuf): void {
    const fa = this.field(field, true, true);
    const n = tokens.length;
    let len = 0, prev = -1;
    for (let i = 0; i < n; i++) {
      const p = tokens.positions[i];
      fa.add(fa.hash.addLowerSpan(text, tokens.starts[i], tokens.ends[i]), doc, p);
      if (p !== prev) len++;
      prev = p;
    }
    this.bufferedBytes += n * 12;
    fa.addLength(doc, len);
    if (n > 0) this.markExists(doc, field);
  }

  /** Adds an un-analysed term (keyword, boolean): docs only, no freqs, no norms. */
  addTerm(doc: number, field: string, term: string): void {
    const fa = this.field(field, false, false);
    fa.add(fa.termId(term), doc, 0);
    this.bufferedBytes += 12;
    this.markExists(doc, field);
  }

  addNumeric(doc: number, field: string, value: number): void {
    let dv = this.numeric.get(field);
    if (!dv) { dv = new NumericAcc(); this.numeric.set(field, dv); }
    dv.add(doc, value);
    this.bufferedBytes += 16;
    this.markExists(doc, field);
  }

  addOrdinal(doc: number, field: string, value: string): void {
    let dv = this.ordinals.get(field);
    if (!dv) { dv = new OrdinalAcc(); this.ordinals.set(field, dv); }
    dv.add(doc, value);
  }

  markExists(doc: number, field: string): void {
    let e = this.exists.get(field);
    if (!e) { e = new DocsAcc(); this.exists.set(field, e); }
    e.add(doc);
  }

  private field(name: string, withFreqs: boolean, withNorms: boolean): FieldAcc {
    let fa = this.fields.get(name);
    if (!fa) {
      const prev = this.prevFields?.get(name);
      if (prev) this.prevFields!.delete(name);
      fa = new FieldAcc(withFreqs, withNorms, prev && prev.withFreqs === withFreqs && prev.withNorms === withNorms ? prev : undefined);
      this.fields.set(name, fa);
    }
    return fa;
  }

  /** The buffer as an immutable segment (its live ids as `setLive`/`deleteLive` left them). */
  build(name: string): MemorySegment {
    const maxDoc = this.maxDoc;
    const fields = new Map<string, MemoryFieldPostings>();
    for (const [name, fa] of this.fields) fields.set(name, buildField(fa, maxDoc));
    const numeric = new Map<string, NumericDocValues>();
    for (const [name, dv] of this.numeric) numeric.set(name, buildNumeric(dv, maxDoc));
    const ordinals = new Map<string, OrdinalDocValues>();
    for (const [name, dv] of this.ordinals) ordinals.set(name, buildOrdinals(dv, maxDoc));
    const exists = new Map<string, Uint32Array>();
    for (const [name, e] of this.exists) exists.set(name, Uint32Array.from(e.docs.subarray(0, e.n)));
    const ids = this.ids.frozen(maxDoc);
    return new MemorySegment(name, maxDoc, {
      ids, liveIds: this.liveIds.over(ids), parents: this.parentOf.slice(0, maxDoc),
      pathNames: this.pathNames, pathIds: this.pathIds.slice(0, maxDoc),
      sources: this.sources.frozen(maxDoc), routings: this.routings,
      seqNos: this.seqNos.slice(0, maxDoc), versions: this.versions.slice(0, maxDoc), primaryTerms: this.primaryTerms.slice(0, maxDoc),
    }, fields, numeric, ordinals, exists);
  }

  /** Stored source of a buffered root doc (real-time GET before a refresh). */
  storedSource(doc: number): Uint8Array | null { return this.sources.get(doc); }
  storedRouting(doc: number): string | null { return this.routings.get(doc) ?? null; }
}

/** Int32s per term in `buildField`'s working table (three used; four keep a term's within one cache line). */
const TERM_SLOT = 4;
/** Largest working table `buildScratch` keeps (2 MiB: a vocabulary of 131,072 terms). */
const KEEP_SLOT_INTS = 1 << 19;

/**
 * The refresh's working arrays, kept from one build to the next (builds run one at a time on a thread): the
 * per-term table of `buildField` and the vocabulary sort's arrays were fresh memory at every refresh, and a
 * fresh page costs a fault (7–15 µs on this project's VMs). Only what the segment keeps is allocated per build.
 */
const buildScratch = { slot: new Int32Array(0), sort: new SortScratch(), usedIds: new Int32Array(0) };

/**
 * Inverts one field's buffered tokens into its segment postings. Each pass is a function of its own with one
 * loop: in one long function, V8 compiled each hot loop on its own (on-stack replacement) and threw that code
 * away at the first statement after it that had not run yet, so the refresh's build was recompiled over and
 * over on a load (`--trace-deopt`: 23 compiles of it in the two shard workers of a 200,000-document probe).
 */
function buildField(fa: FieldAcc, maxDoc: number): MemoryFieldPostings {
  const T = fa.terms.length, n = fa.n;
  // Per term, interleaved in one line (TERM_SLOT int32s at 4t): its last doc seen, then (pass 1) its tokens and
  // postings counted, then (pass 2) where its next posting and next position go. Both passes touch a random
  // term per token: one cache line per token rather than one per array (three arrays of a buffer's vocabulary
  // are larger than the core's cache).
  let slot = buildScratch.slot;
  if (slot.length < T * TERM_SLOT) {
    slot = new Int32Array((T + (T >> 2)) * TERM_SLOT);
    if (slot.length <= KEEP_SLOT_INTS) buildScratch.slot = slot;
  }
  clearSlots(slot, T);
  const nPostings = countPostings(slot, fa.tokTerm, fa.tokDoc, n);
  // The terms this buffer's tokens used: all of the hash's unless it was carried over from earlier buffers.
  const used = countUsed(slot, T);
  fa.termsUsed = used;
  // Dictionary order, each term's id carried through the radix sort (a comparator over ids cost 4× the sort,
  // and looking each sorted term up again was a hash probe per term).
  const { terms, ids: rank } = used === T ? sortTerms(fa.terms, buildScratch.sort) : sortUsed(fa.terms, slot, used);
  const docStart = new Uint32Array(used + 1);
  placeTerms(slot, rank, used, docStart);
  const docs = new Uint32Array(nPostings);
  let freqs: Uint32Array | null = null, posStart: Uint32Array | null = null, positions: Uint32Array | null = null;
  if (fa.withFreqs) {
    freqs = new Uint32Array(nPostings); posStart = new Uint32Array(nPostings + 1); positions = new Uint32Array(n);
    placeTokens(slot, fa.tokTerm, fa.tokDoc, fa.tokPos, n, docs, posStart, positions);
    freqsOf(posStart, freqs, nPostings);
  } else {
    placeDocs(slot, fa.tokTerm, fa.tokDoc, n, docs);
  }
  let norms: Uint8Array | null = null, docCount: number, sumTtf: number;
  if (fa.withNorms) {
    norms = new Uint8Array(maxDoc);
    const counts = normsOf(fa.lengths, Math.min(maxDoc, fa.lengths.length), norms);
    docCount = counts.docs; sumTtf = counts.sum;
  } else {
    docCount = distinctDocs(docs, maxDoc);
    sumTtf = freqs ? n : nPostings;
  }
  return new MemoryFieldPostings(terms, docStart, docs, freqs, posStart, positions, norms, docCount, sumTtf);
}

function clearSlots(slot: Int32Array, T: number): void {
  for (let s = 0; s < T * TERM_SLOT; s += TERM_SLOT) { slot[s] = -1; slot[s + 1] = 0; slot[s + 2] = 0; }
}

/**
 * Pass 1, arrival order: tokens and postings per term (a posting starts whenever a term's doc changes; arrival
 * order is the order each term's postings and positions keep). Returns the number of postings.
 */
function countPostings(slot: Int32Array, tt: Int32Array, td: Int32Array, n: number): number {
  let nPostings = 0;
  for (let i = 0; i < n; i++) {
    const s = tt[i] * TERM_SLOT, d = td[i];
    slot[s + 1]++;
    if (slot[s] !== d) { slot[s] = d; slot[s + 2]++; nPostings++; }
  }
  return nPostings;
}

function countUsed(slot: Int32Array, T: number): number {
  let used = 0;
  for (let s = 1; s < T * TERM_SLOT; s += TERM_SLOT) if (slot[s] > 0) used++;
  return used;
}

/** The used terms of a kept hash in dictionary order, with their ids (as `sortTerms` gives them). */
function sortUsed(all: string[], slot: Int32Array, used: number): { terms: string[]; ids: Int32Array } {
  // Sized once: grown by push, a vocabulary's array (past 128 KB, in V8's large-object space, which is old
  // generation) was allocated again at every growth, each copy counting towards the next full collection.
  const usedTerms: string[] = new Array(used);
  let usedIds = buildScratch.usedIds;
  if (usedIds.length < used) {
    usedIds = new Int32Array(used + (used >> 2));
    if (usedIds.length <= KEEP_SLOT_INTS / TERM_SLOT) buildScratch.usedIds = usedIds;
  }
  let u = 0;
  for (let t = 0; t < all.length; t++) if (slot[t * TERM_SLOT + 1] > 0) { usedIds[u] = t; usedTerms[u++] = all[t]; }
  const sorted = sortTermsInPlace(usedTerms, buildScratch.sort), rank = sorted.ids;
  for (let r = 0; r < used; r++) rank[r] = usedIds[rank[r]];
  return sorted;
}

/** Where each term's postings and positions start, in dictionary order: into `docStart` and the term's slot. */
function placeTerms(slot: Int32Array, rank: Int32Array, used: number, docStart: Uint32Array): void {
  let p = 0, q = 0;
  for (let r = 0; r < used; r++) {
    const s = rank[r] * TERM_SLOT, tokens = slot[s + 1], postings = slot[s + 2];
    docStart[r] = p;
    slot[s] = -1; slot[s + 1] = p; slot[s + 2] = q;
    p += postings; q += tokens;
  }
  docStart[used] = p;
}

/** Pass 2, arrival order again: each token lands straight in its final slot (postings, their starts, positions). */
function placeTokens(slot: Int32Array, tt: Int32Array, td: Int32Array, tp: Int32Array, n: number, docs: Uint32Array, posStart: Uint32Array, positions: Uint32Array): void {
  for (let i = 0; i < n; i++) {
    const s = tt[i] * TERM_SLOT, d = td[i];
    if (slot[s] !== d) {
      slot[s] = d;
      const k = slot[s + 1]++;
      docs[k] = d;
      posStart[k] = slot[s + 2];
    }
    positions[slot[s + 2]++] = tp[i];
  }
  posStart[docs.length] = n;
}

/**
 * A posting's positions are its term's next ones, so its freq is where the next posting's start: counted here
 * in order rather than incremented per token in pass 2 (a read of a random slot of a multi-megabyte column for
 * every token was a quarter of the build's time).
 */
function freqsOf(posStart: Uint32Array, freqs: Uint32Array, nPostings: number): void {
  for (let k = 0; k < nPostings; k++) freqs[k] = posStart[k + 1] - posStart[k];
}

/** Pass 2 of a field without freqs: postings only. */
function placeDocs(slot: Int32Array, tt: Int32Array, td: Int32Array, n: number, docs: Uint32Array): void {
  for (let i = 0; i < n; i++) {
    const s = tt[i] * TERM_SLOT, d = td[i];
    if (slot[s] !== d) { slot[s] = d; docs[slot[s + 1]++] = d; }
  }
}

/** Fills `norms` from the field lengths of docs [0, lim); the docs with a length and the lengths' sum. */
function normsOf(lengths: Int32Array, lim: number, norms: Uint8Array): { docs: number; sum: number } {
  let docs = 0, sum = 0;
  for (let d = 0; d < lim; d++) { const len = lengths[d]; if (len > 0) { norms[d] = encodeNorm(len); sum += len; docs++; } }
  return { docs, sum };
}

/** How many distinct docs `docs` holds (a keyword field's doc count). */
function distinctDocs(docs: Uint32Array, maxDoc: number): number {
  const seen = new Uint8Array(maxDoc);
  let n = 0;
  for (let i = 0; i < docs.length; i++) if (!seen[docs[i]]) { seen[docs[i]] = 1; n++; }
  return n;
}

function buildNumeric(dv: NumericAcc, maxDoc: number): NumericDocValues {
  const start = new Uint32Array(maxDoc + 1);
  for (let i = 0; i < dv.n; i++) start[dv.docs[i] + 1]++;
  for (let d = 0; d < maxDoc; d++) start[d + 1] += start[d];
  // Values arrive grouped by doc in doc order, so a copy keeps the grouping; sort each doc's run.
  const values = dv.values.slice(0, dv.n);
  for (let d = 0; d < maxDoc; d++) if (start[d + 1] - start[d] > 1) values.subarray(start[d], start[d + 1]).sort();
  return new NumericDocValues(start, values);
}

function buildOrdinals(dv: OrdinalAcc, maxDoc: number): OrdinalDocValues {
  const { terms: ordTerms, ids: rank } = sortTerms(dv.hash.terms, buildScratch.sort);
  const ordOf = new Int32Array(ordTerms.length);
  for (let r = 0; r < rank.length; r++) ordOf[rank[r]] = r;
  // Counting sort of the (doc, ord) pairs by doc, then each doc's run sorted and de-duplicated in place.
  const n = dv.n;
  const start = new Uint32Array(maxDoc + 1);
  for (let i = 0; i < n; i++) start[dv.docs[i] + 1]++;
  for (let d = 0; d < maxDoc; d++) start[d + 1] += start[d];
  const byDoc = new Uint32Array(n);
  const fill = start.slice(0, maxDoc);
  for (let i = 0; i < n; i++) byDoc[fill[dv.docs[i]]++] = ordOf[dv.ids[i]];
  const outStart = new Uint32Array(maxDoc + 1);
  let o = 0;
  for (let d = 0; d < maxDoc; d++) {
    outStart[d] = o;
    const s = start[d], e = start[d + 1];
    if (e - s > 1) byDoc.subarray(s, e).sort();
    for (let j = s; j < e; j++) if (j === s || byDoc[j] !== byDoc[j - 1]) byDoc[o++] = byDoc[j];
  }
  outStart[maxDoc] = o;
  return new OrdinalDocValues(outStart, byDoc.slice(0, o), new ArrayOrdinalTerms(ordTerms));
}
