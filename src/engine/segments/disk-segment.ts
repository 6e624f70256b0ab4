/**
 * A segment on disk (docs/format.md "Document segments"): opening reads `.si` and `.tip` (the directory and
 * the small in-memory indexes) and checks that every other file exists with the length `.si` records; term
 * blocks, postings, columns and stored blocks are then read on demand with positioned reads, checked, decoded
 * and kept in the shard worker's bounded block cache. File descriptors open on first use and close with the
 * segment.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import {
  SEGMENT_DOC_VALUES_MAGIC, SEGMENT_IDS_MAGIC, SEGMENT_INFO_MAGIC, SEGMENT_MIN_VERSION, SEGMENT_POSITIONS_MAGIC,
  SEGMENT_POSTINGS_MAGIC, SEGMENT_STORED_MAGIC, SEGMENT_TERM_INDEX_MAGIC, SEGMENT_TERMS_MAGIC, SEGMENT_VERSION,
} from '../codec/format-ids.ts';
import { CorruptionError } from '../errors.ts';
import { ArrayCursor } from '../postings/cursor.ts';
import {
  type Bitmap, type FieldPostings, NumericDocValues, OrdinalDocValues, type Segment,
  type StoredFields, type TermPostings,
} from '../postings/segment.ts';
import { BlockCache, CacheOwner } from './block-cache.ts';
import { BloomFilter, bloomHash1, bloomHash2 } from './bloom-filter.ts';
import {
  decodeDocList, decodeNested, decodeNumeric, decodeOrdinals, decodeOrdinalTerms, type NestedStructure,
} from './doc-values-format.ts';
import { decodeDocs, decodePositions } from './postings-format.ts';
import { LazyFileReader, type RegionRef, SegmentFileReader } from './segment-file.ts';
import {
  type ColumnMeta, decodeSegmentIndexes, decodeSegmentInfo, type FieldMeta, type OrdinalColumnMeta, SEGMENT_EXTENSIONS, type SegmentExtension,
  type SegmentIndexes, type SegmentInfo,
} from './segment-info.ts';
import { StoredFieldsReader, type StoredEntry } from './stored-fields-format.ts';
import { TermDictionaryReader } from './term-dictionary.ts';
import { bitmapOf } from '../codec/roaring.ts';

/** Values per field-dictionary entry in `.tim`: docFreq, ttf−docFreq, .doc offset, .doc length, .pos offset, .pos length. */
export const FIELD_TERM_ARITY = 6;
/** Values per `_id` entry in `.ids`: doc, seq_no, version, primary term. */
export const ID_TERM_ARITY = 4;

const MAGICS: Record<SegmentExtension | 'si', number> = {
  si: SEGMENT_INFO_MAGIC, tip: SEGMENT_TERM_INDEX_MAGIC, tim: SEGMENT_TERMS_MAGIC, doc: SEGMENT_POSTINGS_MAGIC,
  pos: SEGMENT_POSITIONS_MAGIC, dvd: SEGMENT_DOC_VALUES_MAGIC, fdt: SEGMENT_STORED_MAGIC, ids: SEGMENT_IDS_MAGIC,
};

export function segmentFile(dir: string, name: string, ext: SegmentExtension | 'si'): string {
  return join(dir, `${name}.${ext}`);
}

/** Reads a single-region file (`.si`, `.tip`): header, then one region running to the end. */
function readWholeRegion(path: string, ext: 'si' | 'tip'): Uint8Array {
  const f = new SegmentFileReader(path, MAGICS[ext], SEGMENT_MIN_VERSION, SEGMENT_VERSION);
  try {
    return f.readRegion({ off: 8, len: f.sizeBytes - 8 });
  } finally {
    f.close();
  }
}

/** Private cache of a merge's view of one input: a term block and a column at a time is all it re-reads. */
const MERGE_CACHE_BYTES = 4 * 1024 * 1024;

/** `_id` lookup result: the doc and the version data stored with it. */
export interface IdEntry { doc: number; seqNo: number; version: number; primaryTerm: number }

export class DiskSegment implements Segment {
  readonly onDisk = true;
  readonly name: string;
  readonly maxDoc: number;
  readonly hasNested: boolean;
  readonly sizeBytes: number;
  readonly info: SegmentInfo;
  private readonly files = new Map<SegmentExtension, LazyFileReader>();
  private readonly fieldByName = new Map<string, DiskFieldPostings>();
  /** Column metadata by name (search resolves columns per segment; no scan of the `.si` lists). */
  private readonly numericByName: Map<string, ColumnMeta>;
  private readonly ordinalsByName: Map<string, OrdinalColumnMeta>;
  private readonly existsByName: Map<string, ColumnMeta>;
  private readonly bloom: BloomFilter;
  private readonly ids: TermDictionaryReader;
  private readonly storedFields: StoredFieldsReader;
  /** Every key space this segment's readers hold in the cache, dropped at close. */
  private readonly owners: CacheOwner[] = [];
  /** The columns' key space, a key per column tag. */
  private readonly columnOwner: CacheOwner;
  private readonly columnKeys = new Map<string, number>();
  private closed = false;

  private constructor(readonly dir: string, info: SegmentInfo, private readonly indexes: SegmentIndexes, readonly cache: BlockCache) {
    this.info = info;
    this.name = info.name;
    this.maxDoc = info.maxDoc;
    this.hasNested = info.hasNested;
    this.columnOwner = this.cacheOwner();
    let size = 0;
    for (const ext of SEGMENT_EXTENSIONS) size += info.fileBytes[ext];
    this.sizeBytes = size;
    for (const ext of SEGMENT_EXTENSIONS) {
      this.files.set(ext, new LazyFileReader(segmentFile(dir, info.name, ext), MAGICS[ext], SEGMENT_MIN_VERSION, SEGMENT_VERSION));
    }
    this.numericByName = new Map(info.numeric.map((c) => [c.name, c]));
    this.ordinalsByName = new Map(info.ordinals.map((c) => [c.name, c]));
    this.existsByName = new Map(info.exists.map((c) => [c.name, c]));
    this.bloom = new BloomFilter(indexes.bloomWords);
    this.ids = new TermDictionaryReader(this.file('ids'), indexes.ids, cache, this.cacheOwner());
    this.storedFields = new StoredFieldsReader(this.file('fdt'), indexes.stored);
    for (let i = 0; i < info.fields.length; i++) {
      const f = info.fields[i];
      this.fieldByName.set(f.name, new DiskFieldPostings(this, f, new TermDictionaryReader(this.file('tim'), indexes.terms[i], cache, this.cacheOwner())));
    }
  }

  /** A new key space in the cache for one of this segment's readers, dropped when the segment closes. */
  cacheOwner(): CacheOwner {
    const o = new CacheOwner();
    this.owners.push(o);
    return o;
  }

  /** Opens segment `name` in `dir`: reads `.si` and `.tip`, checks the other files' presence and lengths. */
  static open(dir: string, name: string, cache: BlockCache): DiskSegment {
    const siPath = segmentFile(dir, name, 'si');
    const info = decodeSegmentInfo(readWholeRegion(siPath, 'si'), siPath);
    if (info.name !== name) throw new CorruptionError(siPath, 8, `segment info names segment ${info.name}, file is ${name}`);
    for (const ext of SEGMENT_EXTENSIONS) {
      const p = segmentFile(dir, name, ext);
      let size: number;
      try { size = statSync(p).size; } catch { throw new CorruptionError(p, 0, 'segment file is missing'); }
      if (size !== info.fileBytes[ext]) throw new CorruptionError(p, Math.min(size, info.fileBytes[ext]), `segment file is ${size} bytes, segment info says ${info.fileBytes[ext]}`);
    }
    const tipPath = segmentFile(dir, name, 'tip');
    const indexes = decodeSegmentIndexes(readWholeRegion(tipPath, 'tip'), tipPath);
    if (indexes.terms.length !== info.fields.length) throw new CorruptionError(tipPath, 8, `${indexes.terms.length} term indexes for ${info.fields.length} fields`);
    return new DiskSegment(dir, info, indexes, cache);
  }

  /**
   * The same segment read for a merge: its own descriptors and a small private cache, so a merge streaming
   * through every term and column does not evict what searches keep in the shared cache. Close it after use.
   */
  mergeView(): DiskSegment {
    return new DiskSegment(this.dir, this.info, this.indexes, new BlockCache(MERGE_CACHE_BYTES));
  }

  /** The reader of file `ext` (its descriptor opens on the first read). */
  file(ext: SegmentExtension): LazyFileReader { return this.files.get(ext)!; }

  /** A checked region of `.dvd`, decoded by `decode` and cached under `tag`. */
  column<T>(tag: string, ref: RegionRef, decode: (payload: Uint8Array) => { value: T; bytes: number }): T {
    let key = this.columnKeys.get(tag);
    if (key === undefined) { key = this.columnKeys.size; this.columnKeys.set(tag, key); }
    return this.cache.getColumn(this.columnOwner, key, () => decode(this.file('dvd').readRegion(ref)));
  }

  fieldNames(): readonly string[] { return this.info.fields.map((f) => f.name); }
  field(name: string): DiskFieldPostings | null { return this.fieldByName.get(name) ?? null; }
  numericNames(): readonly string[] { return this.info.numeric.map((c) => c.name); }
  numeric(name: string): NumericDocValues | null {
    const c = this.numericByName.get(name);
    if (!c) return null;
    return this.column(`n:${name}`, c.ref, (p) => {
      const dv = decodeNumeric(p, this.maxDoc, segmentFile(this.dir, this.name, 'dvd'), c.ref.off);
      return { value: dv, bytes: dv.start.byteLength + dv.values.byteLength };
    });
  }
  ordinalNames(): readonly string[] { return this.info.ordinals.map((c) => c.name); }
  ordinals(name: string): OrdinalDocValues | null {
    const c = this.ordinalsByName.get(name);
    if (!c) return null;
    return this.column(`o:${name}`, c.ref, (p) => {
      // The terms come with the ords: a query reading ords almost always turns some into keys.
      const path = segmentFile(this.dir, this.name, 'dvd');
      const terms = decodeOrdinalTerms(this.file('dvd').readRegion(c.terms), path);
      if (terms.size !== c.termCount) throw new CorruptionError(path, c.terms.off, `${terms.size} ordinal terms, segment info says ${c.termCount}`);
      const dv = decodeOrdinals(p, this.maxDoc, terms, path, c.ref.off);
      return { value: dv, bytes: dv.start.byteLength + dv.ords.byteLength + terms.byteLength };
    });
  }
  existsNames(): readonly string[] { return this.info.exists.map((c) => c.name); }
  exists(name: string): Uint32Array | null {
    const c = this.existsByName.get(name);
    if (!c) return null;
    return this.column(`e:${name}`, c.ref, (p) => { const docs = decodeDocList(p); return { value: docs, bytes: docs.byteLength }; });
  }

  private nested(): NestedStructure | null {
    const ref = this.info.nested;
    if (!ref) return null;
    return this.column('nested', ref, (p) => {
      const n = decodeNested(p, this.maxDoc, segmentFile(this.dir, this.name, 'dvd'), ref.off);
      return { value: n, bytes: n.parentOf.byteLength + n.pathIds.byteLength };
    });
  }

  parentOf(): Int32Array {
    const n = this.nested();
    if (!n) throw new Error(`segment ${this.name} has no nested docs`);
    return n.parentOf;
  }
  pathOf(doc: number): string {
    const n = this.nested();
    return n ? n.pathNames[n.pathIds[doc]] : '';
  }
  id(doc: number): string { return this.storedFields.get(doc).id; }

  /** The `_id` entry (doc and versions) of `id`, or null. */
  lookup(id: string): IdEntry | null {
    return this.lookupHashed(id, bloomHash1(id), bloomHash2(id));
  }

  /** `lookup` with the id's Bloom hashes already computed (one lookup across many segments). */
  lookupHashed(id: string, h1: number, h2: number): IdEntry | null {
    if (!this.bloom.mayContainHashed(h1, h2)) return null;
    const ord = this.ids.lookup(id);
    if (ord < 0) return null;
    return { doc: this.ids.value(ord, 0), seqNo: this.ids.value(ord, 1), version: this.ids.value(ord, 2), primaryTerm: this.ids.value(ord, 3) };
  }
  lookupId(id: string): number { return this.lookup(id)?.doc ?? -1; }

  stored(doc: number): StoredFields { return this.storedEntry(doc); }
  storedEntry(doc: number): StoredEntry { return this.storedFields.get(doc); }
  /** Every root doc's stored entry in doc order (for merges). */
  storedEntries(): Generator<StoredEntry> { return this.storedFields.entries(); }
  /** The stored-fields blocks as written (merges copy them whole). */
  get storedBlocks(): StoredFieldsReader { return this.storedFields; }

  /** The `_id` dictionary: every root doc's id with its doc, seq_no, version and primary term (ID_TERM_ARITY values). */
  get idDictionary(): TermDictionaryReader { return this.ids; }

  private refs = 1;

  /**
   * Opens every file now. Called when the segment leaves its index's list while readers still hold it: its
   * files may be deleted from then on, and an open descriptor keeps them readable.
   */
  openAll(): void {
    // Only holders beyond the caller's own reference need it; a segment about to close is left alone.
    if (this.refs <= 1) return;
    for (const ext of SEGMENT_EXTENSIONS) this.files.get(ext)!.open();
  }

  /** Another holder (a reader kept across tasks, a merge); the segment closes when the last one lets go. */
  incRef(): void { this.refs++; }

  decRef(): void {
    if (--this.refs === 0) this.close();
  }

  /** Closes the file descriptors and drops the segment's cache entries; reads after this throw. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const f of this.files.values()) f.close();
    for (const o of this.owners) this.cache.drop(o);
  }
}

/** Decoded postings of one term (what the cache holds). */
interface DecodedPostings { docs: Uint32Array; freqs: Uint32Array | null; posStart: Uint32Array | null; positions: Uint32Array | null }

/**
 * Inline postings as the block cache counts them: at their heap footprint, which for a few small arrays is mostly
 * the objects — the cache's entry and map slot and the postings object (INLINE_ENTRY_BYTES), and per typed array
 * its object and buffer (INLINE_ARRAY_BYTES). Measured: 100,000 entries of two 4-doc arrays took 606 bytes of heap
 * each, of which 32 are the docs and freqs. Postings from the postings file (17 docs and more) keep the smaller
 * fixed charge they had: counted the same way, more of them were evicted and the probe's mix showed no gain in
 * process (two pairs, busy machine; docs/benchmarks.md, search36).
 */
const INLINE_ENTRY_BYTES = 192, INLINE_ARRAY_BYTES = 192;

function sizedInline(d: DecodedPostings): { value: DecodedPostings; bytes: number } {
  let bytes = INLINE_ENTRY_BYTES;
  for (const a of [d.docs, d.freqs, d.posStart, d.positions]) if (a !== null) bytes += INLINE_ARRAY_BYTES + a.byteLength;
  return { value: d, bytes };
}

export class DiskFieldPostings implements FieldPostings {
  readonly hasFreqs: boolean;
  readonly hasPositions: boolean;
  readonly docCount: number;
  readonly sumTotalTermFreq: number;
  readonly sumDocFreq: number;
  /** This field's postings in the cache: term t decoded without positions under 3t, with them 3t + 1, as a bitmap 3t + 2. */
  private readonly owner: CacheOwner;

  constructor(private readonly seg: DiskSegment, private readonly meta: FieldMeta, private readonly dict: TermDictionaryReader) {
    this.hasFreqs = meta.hasFreqs;
    this.hasPositions = meta.hasPositions;
    this.docCount = meta.docCount;
    this.sumTotalTermFreq = meta.sumTotalTermFreq;
    this.sumDocFreq = meta.sumDocFreq;
    this.owner = seg.cacheOwner();
  }

  get numTerms(): number { return this.dict.numTerms; }
  /** The terms file's path, for corruption reports of inline postings (built once: a path join per decode was a tenth of a search's garbage). */
  private get termsPath(): string { return (this.termsPathMemo ??= segmentFile(this.seg.dir, this.seg.name, 'tim')); }
  private termsPathMemo: string | undefined;
  termId(term: string): number { return this.dict.lookup(term); }
  seekCeil(term: string): number { return this.dict.seekCeil(term); }
  term(t: number): string { return this.dict.term(t); }
  docFreq(t: number): number { return this.dict.value(t, 0); }
  totalTermFreq(t: number): number { return this.dict.value(t, 0) + this.dict.value(t, 1); }

  /**
   * Term `t`'s decoded postings, cached — inline ones (rare terms, at most 16 docs in the dictionary entry) too,
   * counted at their heap footprint (`sizedInline`). The cache is asked first and the dictionary entry read only on
   * a miss: finding an entry reads its dictionary block, the dictionary remembers only its last 128 entries, and a
   * search over a vocabulary of a few thousand words read an entry and decoded inline postings in every segment
   * for every term at every query (a third to a half of a 2-term AND's query phase on a 1M-doc shard,
   * docs/benchmarks.md, search36).
   */
  private decoded(t: number, withPositions: boolean): DecodedPostings {
    const seg = this.seg;
    return seg.cache.get(this.owner, withPositions ? 3 * t + 1 : 3 * t, () => {
      const blob = this.dict.blob(t);
      if (blob !== null) return sizedInline(this.decodeInline(t, blob, withPositions));
      const df = this.dict.value(t, 0);
      const ref: RegionRef = { off: this.dict.value(t, 2), len: this.dict.value(t, 3) };
      const file = seg.file('doc');
      const docs = new Uint32Array(df);
      const freqs = this.hasFreqs ? new Uint32Array(df) : null;
      const payload = file.readRegionTransient(ref);
      decodeDocs(payload, 0, payload.byteLength, df, docs, freqs, file.path, ref.off);
      let posStart: Uint32Array | null = null, positions: Uint32Array | null = null;
      if (withPositions && this.hasPositions && freqs) {
        const pref: RegionRef = { off: this.dict.value(t, 4), len: this.dict.value(t, 5) };
        const pf = seg.file('pos');
        const pp = pf.readRegionTransient(pref);
        posStart = new Uint32Array(df + 1);
        positions = decodePositions(pp, 0, pp.byteLength, freqs, df, posStart, pf.path, pref.off);
      }
      const bytes = 64 + docs.byteLength + (freqs?.byteLength ?? 0) + (posStart?.byteLength ?? 0) + (positions?.byteLength ?? 0);
      return { value: { docs, freqs, posStart, positions }, bytes };
    });
  }

  private decodeInline(t: number, blob: Uint8Array, withPositions: boolean): DecodedPostings {
    const df = this.dict.value(t, 0);
    const path = this.termsPath;
    let p = 0, docsLen = 0, shift = 0;
    for (;;) { const b = blob[p++]; docsLen += (b & 0x7f) * 2 ** shift; if (b < 0x80) break; shift += 7; }
    const docs = new Uint32Array(df);
    const freqs = this.hasFreqs ? new Uint32Array(df) : null;
    decodeDocs(blob, p, p + docsLen, df, docs, freqs, path, 0);
    let posStart: Uint32Array | null = null, positions: Uint32Array | null = null;
    if (withPositions && this.hasPositions && freqs) {
      posStart = new Uint32Array(df + 1);
      positions = decodePositions(blob, p + docsLen, blob.byteLength, freqs, df, posStart, path, 0);
    }
    return { docs, freqs, posStart, positions };
  }

  /**
   * A merge's read of term `t`, uncached: its docs (and, for a field with freqs, freqs) decoded into `docs` and
   * `freqs` (each at least docFreq long), and its positions payload as written — a view valid until the next
   * transient read — or null for a field without positions.
   */
  readForMerge(t: number, docs: Uint32Array, freqs: Uint32Array | null): Uint8Array | null {
    const df = this.dict.value(t, 0);
    const blob = this.dict.blob(t);
    if (blob !== null) {
      let p = 0, docsLen = 0, shift = 0;
      for (;;) { const b = blob[p++]; docsLen += (b & 0x7f) * 2 ** shift; if (b < 0x80) break; shift += 7; }
      decodeDocs(blob, p, p + docsLen, df, docs, freqs, this.termsPath, 0);
      return this.hasPositions ? blob.subarray(p + docsLen) : null;
    }
    const ref: RegionRef = { off: this.dict.value(t, 2), len: this.dict.value(t, 3) };
    const file = this.seg.file('doc');
    const payload = file.readRegionTransient(ref);
    decodeDocs(payload, 0, payload.byteLength, df, docs, freqs, file.path, ref.off);
    if (!this.hasPositions) return null;
    return this.seg.file('pos').readRegionTransient({ off: this.dict.value(t, 4), len: this.dict.value(t, 5) });
  }

  postings(t: number, withPositions: boolean): TermPostings {
    const d = this.decoded(t, withPositions && this.hasPositions);
    return { docs: d.docs, start: 0, end: d.docs.length, freqs: d.freqs, posStart: d.posStart, positions: d.positions };
  }

  cursor(t: number, reuse?: ArrayCursor): ArrayCursor {
    const d = this.decoded(t, false);
    return (reuse ?? new ArrayCursor(d.docs, 0, 0)).reset(d.docs, 0, d.docs.length);
  }

  bitmap(t: number): Bitmap {
    return this.seg.cache.get(this.owner, 3 * t + 2, () => {
      const b = bitmapOf(this.decoded(t, false).docs);
      return { value: b, bytes: 64 + b.getSerializationSizeInBytes(false) };
    });
  }

  norms(): Uint8Array | null {
    const ref = this.meta.norms;
    if (!ref) return null;
    return this.seg.column(`nm:${this.meta.name}`, ref, (p) => {
      if (p.byteLength !== this.seg.maxDoc) throw new CorruptionError(segmentFile(this.seg.dir, this.seg.name, 'dvd'), ref.off, `norms hold ${p.byteLength} docs, segment has ${this.seg.maxDoc}`);
      return { value: p, bytes: p.byteLength };
    });
  }
}

