/**
 * Writes one new on-disk segment from the live docs of one or more segments (docs/format.md "Document
 * segments"): a flush writes the refreshed in-memory segments this way, a merge writes its inputs. The write
 * streams: terms are merged across inputs one at a time (a heap over the inputs' sorted dictionaries), so
 * memory holds one term's postings, the columns of the new segment and its `_id` list, never all postings.
 *
 * Docs keep their relative order (input by input, then by doc), so nested blocks stay contiguous; deleted
 * docs are dropped, and their statistics with them (as after a Lucene merge).
 *
 * The write yields to the event loop every few milliseconds (`yieldEvery`), so searches and writes on the
 * same worker keep being served while a large merge runs. Files are written under the segment's final names;
 * a segment becomes part of the index only when a commit point lists it, so a crash mid-write leaves files the
 * next open deletes.
 */
import { rmSync } from 'node:fs';
import {
  SEGMENT_DOC_VALUES_MAGIC, SEGMENT_IDS_MAGIC, SEGMENT_INFO_MAGIC, SEGMENT_POSITIONS_MAGIC, SEGMENT_POSTINGS_MAGIC,
  SEGMENT_STORED_MAGIC, SEGMENT_TERM_INDEX_MAGIC, SEGMENT_TERMS_MAGIC, SEGMENT_VERSION,
} from '../codec/format-ids.ts';
import { NumericDocValues, OrdinalDocValues, type FieldPostings, type OrdinalTerms, type Segment } from '../postings/segment.ts';
import { BloomFilter } from './bloom-filter.ts';
import { DiskFieldPostings, DiskSegment, FIELD_TERM_ARITY, ID_TERM_ARITY, segmentFile } from './disk-segment.ts';
import { encodeDocList, encodeNested, encodeNumeric, encodeOrdinals, encodeOrdinalTerms } from './doc-values-format.ts';
import { encodeDocs, encodePostingPositions, INLINE_MAX_DOCS, VarintBuffer } from './postings-format.ts';
import { SegmentFileWriter } from './segment-file.ts';
import {
  type ColumnMeta, encodeSegmentIndexes, encodeSegmentInfo, type FieldMeta, type OrdinalColumnMeta, SEGMENT_EXTENSIONS,
  type SegmentExtension, type SegmentInfo,
} from './segment-info.ts';
import { StoredFieldsWriter } from './stored-fields-format.ts';
import { TermDictionaryWriter, type TermDictionaryReader, type TermIndex } from './term-dictionary.ts';

/** A segment to copy from, with its live docs (null: all live). */
export interface MergeInput { seg: Segment; live: Uint8Array | null }

export interface WriteOptions {
  /** fsync every file before returning (a flush's commit needs it; refresh-time writes leave it to the commit). */
  sync: boolean;
  /** Awaited every few milliseconds of work; resolves when the caller may continue (default: next macrotask). */
  yieldEvery?: () => Promise<void>;
}

export interface WrittenSegment {
  info: SegmentInfo;
  /** docMaps[k][oldDoc] = doc in the new segment, or -1 when it was deleted. */
  docMaps: Int32Array[];
}

const YIELD_AFTER_MS = 8;

/** Cooperative yielding: `tick()` is cheap; it awaits the yield function once enough time has passed. */
class Yielder {
  private last = performance.now();
  constructor(private readonly yieldFn: () => Promise<void>) {}
  async tick(): Promise<void> {
    const now = performance.now();
    if (now - this.last < YIELD_AFTER_MS) return;
    await this.yieldFn();
    this.last = performance.now();
  }
}

const nextMacrotask = (): Promise<void> => new Promise((r) => setImmediate(r));

export async function writeSegment(dir: string, name: string, inputs: MergeInput[], opts: WriteOptions): Promise<WrittenSegment> {
  const files = new Map<SegmentExtension, SegmentFileWriter>();
  const created: string[] = [];
  const open = (ext: SegmentExtension | 'si', magic: number): SegmentFileWriter => {
    const w = new SegmentFileWriter(segmentFile(dir, name, ext), magic, SEGMENT_VERSION);
    created.push(w.path);
    return w;
  };
  try {
    files.set('tim', open('tim', SEGMENT_TERMS_MAGIC));
    files.set('doc', open('doc', SEGMENT_POSTINGS_MAGIC));
    files.set('pos', open('pos', SEGMENT_POSITIONS_MAGIC));
    files.set('dvd', open('dvd', SEGMENT_DOC_VALUES_MAGIC));
    files.set('fdt', open('fdt', SEGMENT_STORED_MAGIC));
    files.set('ids', open('ids', SEGMENT_IDS_MAGIC));
    const y = new Yielder(opts.yieldEvery ?? nextMacrotask);
    const w = new Writer(inputs, files, y);
    await w.stored();
    const idIndex = await w.ids();
    const fields: FieldMeta[] = [], termIndexes: TermIndex[] = [];
    for (const f of unionNames(inputs, (s) => s.fieldNames())) {
      const r = await w.field(f);
      if (r) { fields.push(r.meta); termIndexes.push(r.index); }
    }
    const numeric: ColumnMeta[] = [];
    for (const f of unionNames(inputs, (s) => s.numericNames())) { numeric.push(w.numeric(f)); await y.tick(); }
    const ordinals: OrdinalColumnMeta[] = [];
    for (const f of unionNames(inputs, (s) => s.ordinalNames())) { ordinals.push(w.ordinals(f)); await y.tick(); }
    const exists: ColumnMeta[] = [];
    for (const f of unionNames(inputs, (s) => s.existsNames())) { const c = w.exists(f); if (c) exists.push(c); }
    const nested = w.nested();
    const tip = open('tip', SEGMENT_TERM_INDEX_MAGIC);
    files.set('tip', tip);
    tip.region(encodeSegmentIndexes({ terms: termIndexes, ids: idIndex, bloomWords: w.bloom.words, stored: w.storedIndex }));
    const fileBytes = {} as Record<SegmentExtension, number>;
    for (const ext of SEGMENT_EXTENSIONS) fileBytes[ext] = files.get(ext)!.finish(opts.sync);
    const info: SegmentInfo = { name, maxDoc: w.maxDoc, numRoots: w.numRoots, hasNested: nested !== null, fileBytes, fields, numeric, ordinals, exists, nested };
    const si = open('si', SEGMENT_INFO_MAGIC);
    si.region(encodeSegmentInfo(info));
    si.finish(opts.sync);
    return { info, docMaps: w.docMaps };
  } catch (e) {
    for (const f of files.values()) f.abandon();
    for (const p of created) rmSync(p, { force: true });
    throw e;
  }
}

/** Every doc of the input survives, so its docs move by one constant (`m[d] = m[0] + d`). */
function allLive(m: Int32Array): boolean {
  return m.length > 0 && m[0] >= 0 && m[m.length - 1] - m[0] === m.length - 1;
}

function unionNames(inputs: MergeInput[], pick: (s: Segment) => readonly string[]): string[] {
  const set = new Set<string>();
  for (const i of inputs) for (const n of pick(i.seg)) set.add(n);
  return [...set].sort();
}

/** A growable Uint32Array (the writer's per-term scratch). */
class U32List {
  a = new Uint32Array(1024);
  n = 0;
  reset(): void { this.n = 0; }
  push(v: number): void {
    if (this.n === this.a.length) { const b = new Uint32Array(this.a.length * 2); b.set(this.a); this.a = b; }
    this.a[this.n++] = v;
  }
}

/** A min-heap of input indexes keyed by each input's current term. */
class TermHeap {
  readonly items: number[] = [];
  constructor(private readonly cur: string[]) {}
  push(k: number): void {
    const a = this.items;
    a.push(k);
    let i = a.length - 1;
    while (i > 0) { const p = (i - 1) >> 1; if (this.cur[a[p]] <= this.cur[a[i]]) break; [a[p], a[i]] = [a[i], a[p]]; i = p; }
  }
  pop(): number {
    const a = this.items, top = a[0], last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < a.length && this.cur[a[l]] < this.cur[a[m]]) m = l;
        if (r < a.length && this.cur[a[r]] < this.cur[a[m]]) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top;
  }
  get size(): number { return this.items.length; }
  peek(): number { return this.items[0]; }
}

interface IdEntry { id: string; doc: number; seqNo: number; version: number; primaryTerm: number }

/** One input's live `_id`s in order, for the k-way merge of `Writer.ids`: the current entry's fields. */
class IdSource {
  private i = -1;
  id = '';
  doc = 0; seqNo = 0; version = 0; primaryTerm = 0;

  constructor(private readonly dict: TermDictionaryReader | null, private readonly list: IdEntry[] | null, private readonly map: Int32Array) {}

  /** Moves to the next live id; false at the end. */
  next(): boolean {
    const dict = this.dict;
    if (dict === null) {
      const list = this.list!;
      if (++this.i >= list.length) return false;
      const e = list[this.i];
      this.id = e.id; this.doc = e.doc; this.seqNo = e.seqNo; this.version = e.version; this.primaryTerm = e.primaryTerm;
      return true;
    }
    while (++this.i < dict.numTerms) {
      const doc = this.map[dict.value(this.i, 0)];
      if (doc < 0) continue;
      this.id = dict.term(this.i); this.doc = doc;
      this.seqNo = dict.value(this.i, 1); this.version = dict.value(this.i, 2); this.primaryTerm = dict.value(this.i, 3);
      return true;
    }
    return false;
  }
}

class Writer {
  readonly docMaps: Int32Array[] = [];
  readonly maxDoc: number;
  numRoots = 0;
  readonly bloom: BloomFilter;
  storedIndex = { firstDocs: [] as number[], blockOff: [] as number[], blockLen: [] as number[] };
  /**
   * Per input that is not on disk (an indexing buffer's segment, bounded by the buffer): its live roots' ids
   * and versions, sorted in `ids`. Disk inputs have an `_id` dictionary, sorted already.
   */
  private readonly memoryIds: (IdEntry[] | null)[] = [];
  private readonly docsBuf = new U32List();
  private readonly freqsBuf = new U32List();
  /** One input term's docs and freqs, decoded for a copy (grown on demand). */
  private inDocs = new Uint32Array(1024);
  private inFreqs = new Uint32Array(1024);
  private readonly docBytes = new VarintBuffer();
  private readonly posBytes = new VarintBuffer();
  private readonly inlineBytes = new VarintBuffer();

  /** Per input: its parentOf array, or null when it has no nested docs. */
  private readonly parents: (Int32Array | null)[] = [];

  constructor(private readonly inputs: MergeInput[], private readonly files: Map<SegmentExtension, SegmentFileWriter>, private readonly y: Yielder) {
    let next = 0, roots = 0;
    for (const { seg, live } of inputs) {
      const m = new Int32Array(seg.maxDoc);
      const parentOf = seg.hasNested ? seg.parentOf() : null;
      this.parents.push(parentOf);
      for (let d = 0; d < m.length; d++) {
        if (live !== null && live[d] === 0) { m[d] = -1; continue; }
        m[d] = next++;
        if (parentOf === null || parentOf[d] === -1) roots++;
      }
      this.docMaps.push(m);
    }
    this.maxDoc = next;
    this.bloom = BloomFilter.forKeys(roots);
  }

  private isRoot(k: number, d: number): boolean {
    const p = this.parents[k];
    return p === null || p[d] === -1;
  }

  async stored(): Promise<void> {
    const sw = new StoredFieldsWriter(this.files.get('fdt')!);
    for (let k = 0; k < this.inputs.length; k++) {
      const seg = this.inputs[k].seg, m = this.docMaps[k];
      const onDisk = seg instanceof DiskSegment;
      this.memoryIds.push(onDisk ? null : []);
      if (onDisk && allLive(m)) { await this.copyStored(seg, m[0], sw); continue; }
      let n = 0;
      for (let d = 0; d < seg.maxDoc; d++) {
        if (m[d] < 0 || !this.isRoot(k, d)) continue;
        const e = seg.stored(d);
        sw.add(m[d], e.id, e.routing, e.seqNo, e.version, e.primaryTerm, e.source);
        if (!onDisk) this.memoryIds[k]!.push({ id: e.id, doc: m[d], seqNo: e.seqNo, version: e.version, primaryTerm: e.primaryTerm });
        if ((++n & 255) === 0) await this.y.tick();
      }
    }
    this.storedIndex = sw.finish();
  }

  /**
   * Copies a disk input with no deleted docs: its compressed blocks as they are (no block is inflated; its ids
   * come from its `_id` dictionary in `ids`). Measured on a kept 1M-doc shard, this is where a merge spent most
   * of its stored-fields time: inflating every block, then compressing it again.
   */
  private async copyStored(seg: DiskSegment, shift: number, sw: StoredFieldsWriter): Promise<void> {
    const blocks = seg.storedBlocks;
    for (let b = 0; b < blocks.blockCount; b++) {
      sw.addCompressedBlock(blocks.blockFirstDoc(b) + shift, blocks.compressedBlock(b));
      if ((b & 63) === 0) await this.y.tick();
    }
  }

  /**
   * The merged `_id` dictionary: a k-way merge of the inputs' sorted ids (disk inputs' `_id` dictionaries, live
   * entries only), so no list of every id is built and sorted — at 5M docs that list held ~100 bytes of heap
   * per doc. Fills the Bloom filter and counts the roots.
   */
  async ids(): Promise<TermIndex> {
    const sources: IdSource[] = [], cur: string[] = [];
    for (let k = 0; k < this.inputs.length; k++) {
      const seg = this.inputs[k].seg, list = this.memoryIds[k];
      if (list) list.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      sources.push(new IdSource(list ? null : (seg as DiskSegment).idDictionary, list, this.docMaps[k]));
      cur.push('');
    }
    const heap = new TermHeap(cur);
    for (let k = 0; k < sources.length; k++) if (sources[k].next()) { cur[k] = sources[k].id; heap.push(k); }
    const tw = new TermDictionaryWriter(this.files.get('ids')!, ID_TERM_ARITY);
    const vals = [0, 0, 0, 0];
    let last: string | null = null;
    while (heap.size > 0) {
      const k = heap.pop(), src = sources[k];
      // One live copy of an id per segment: the index writer deletes the old copy before adding a new one.
      if (src.id === last) throw new Error(`duplicate _id [${last}] among live docs of a merge`);
      last = src.id;
      vals[0] = src.doc; vals[1] = src.seqNo; vals[2] = src.version; vals[3] = src.primaryTerm;
      tw.add(src.id, vals);
      this.bloom.add(src.id);
      if ((++this.numRoots & 1023) === 0) await this.y.tick();
      if (src.next()) { cur[k] = src.id; heap.push(k); }
    }
    for (const list of this.memoryIds) if (list) list.length = 0;
    return tw.finish();
  }

  async field(name: string): Promise<{ meta: FieldMeta; index: TermIndex } | null> {
    const parts: FieldPostings[] = [], maps: Int32Array[] = [];
    for (let k = 0; k < this.inputs.length; k++) {
      const fp = this.inputs[k].seg.field(name);
      if (fp && fp.numTerms > 0) { parts.push(fp); maps.push(this.docMaps[k]); }
    }
    if (parts.length === 0) return null;
    const hasFreqs = parts.some((p) => p.hasFreqs), hasPositions = hasFreqs && parts.some((p) => p.hasPositions);
    const tw = new TermDictionaryWriter(this.files.get('tim')!, FIELD_TERM_ARITY, true);
    const docFile = this.files.get('doc')!, posFile = this.files.get('pos')!;
    const cur: string[] = new Array(parts.length), ord = new Int32Array(parts.length), ks = new Int32Array(parts.length);
    const heap = new TermHeap(cur);
    for (let k = 0; k < parts.length; k++) { cur[k] = parts[k].term(0); heap.push(k); }
    const vals = [0, 0, 0, 0, 0, 0];
    const docs = this.docsBuf, freqs = this.freqsBuf;
    let sumTtf = 0, sumDf = 0, terms = 0;
    const seen = new Uint8Array(this.maxDoc);
    let docCount = 0;
    while (heap.size > 0) {
      const term = cur[heap.peek()];
      docs.reset(); freqs.reset(); this.posBytes.reset();
      // Inputs in index order keep the concatenated postings ascending; pop them all, then sort by k (insertion
      // into a reused array: most terms are in one or two inputs, and a sort call per term showed in profiles).
      let nk = 0;
      while (heap.size > 0 && cur[heap.peek()] === term) {
        const k = heap.pop();
        let i = nk++;
        for (; i > 0 && ks[i - 1] > k; i--) ks[i] = ks[i - 1];
        ks[i] = k;
      }
      for (let i = 0; i < nk; i++) {
        const k = ks[i];
        this.copyPostings(parts[k], ord[k], maps[k], hasFreqs, hasPositions);
        if (++ord[k] < parts[k].numTerms) { cur[k] = parts[k].term(ord[k]); heap.push(k); }
      }
      if (docs.n === 0) continue;
      let ttf = 0;
      if (hasFreqs) for (let i = 0; i < docs.n; i++) ttf += freqs.a[i]; else ttf = docs.n;
      for (let i = 0; i < docs.n; i++) if (!seen[docs.a[i]]) { seen[docs.a[i]] = 1; docCount++; }
      this.docBytes.reset();
      encodeDocs(this.docBytes, docs.a, docs.n, hasFreqs ? freqs.a : null);
      vals[0] = docs.n; vals[1] = ttf - docs.n;
      if (docs.n <= INLINE_MAX_DOCS) {
        // Rare terms: both payloads in the dictionary entry (docs length first).
        const blob = this.inlineBytes.reset();
        blob.uvarint(this.docBytes.len);
        blob.bytes(this.docBytes.buf.subarray(0, this.docBytes.len));
        blob.bytes(this.posBytes.buf.subarray(0, this.posBytes.len));
        vals[2] = vals[3] = vals[4] = vals[5] = 0;
        tw.add(term, vals, blob.buf.subarray(0, blob.len));
      } else {
        const dref = docFile.region(this.docBytes.buf.subarray(0, this.docBytes.len));
        vals[2] = dref.off; vals[3] = dref.len; vals[4] = 0; vals[5] = 0;
        if (hasPositions) { const pref = posFile.region(this.posBytes.buf.subarray(0, this.posBytes.len)); vals[4] = pref.off; vals[5] = pref.len; }
        tw.add(term, vals);
      }
      sumTtf += ttf; sumDf += docs.n; terms++;
      if ((terms & 127) === 0) await this.y.tick();
    }
    if (terms === 0) return null;
    const norms = this.norms(name);
    let normsRef = null;
    if (norms) {
      normsRef = this.files.get('dvd')!.region(norms);
      // Text fields count the docs with a length, as the builder does (an empty value has postings of no term).
      docCount = 0;
      for (let d = 0; d < norms.length; d++) if (norms[d] !== 0) docCount++;
    }
    return { meta: { name, hasFreqs, hasPositions, docCount, sumTotalTermFreq: sumTtf, sumDocFreq: sumDf, norms: normsRef }, index: tw.finish() };
  }

  /**
   * Appends term `t` of one input: its live docs renumbered, their freqs, and their positions encoded straight
   * into `posBytes`. Positions payloads concatenate (`encodePostingPositions`), so that of an input whose docs
   * all survive is copied as written: on a kept 1M-doc shard, decoding and re-encoding positions was most
   * of a merge's postings time.
   */
  private copyPostings(fp: FieldPostings, t: number, map: Int32Array, hasFreqs: boolean, hasPositions: boolean): void {
    const docs = this.docsBuf, freqs = this.freqsBuf, out = this.posBytes;
    if (fp instanceof DiskFieldPostings && fp.hasFreqs === hasFreqs && fp.hasPositions === hasPositions && allLive(map)) {
      const df = fp.docFreq(t);
      if (this.inDocs.length < df) { this.inDocs = new Uint32Array(df * 2); this.inFreqs = new Uint32Array(df * 2); }
      const positions = fp.readForMerge(t, this.inDocs, hasFreqs ? this.inFreqs : null);
      const shift = map[0];
      for (let i = 0; i < df; i++) docs.push(this.inDocs[i] + shift);
      if (hasFreqs) for (let i = 0; i < df; i++) freqs.push(this.inFreqs[i]);
      if (hasPositions) out.bytes(positions!);
      return;
    }
    const tp = fp.postings(t, hasPositions);
    for (let p = tp.start; p < tp.end; p++) {
      const nd = map[tp.docs[p]];
      if (nd < 0) continue;
      docs.push(nd);
      if (!hasFreqs) continue;
      freqs.push(tp.freqs ? tp.freqs[p] : 1);
      if (!hasPositions) continue;
      if (tp.positions) encodePostingPositions(out, tp.positions, tp.posStart![p], tp.posStart![p + 1]);
      else out.uvarint(0);
    }
  }

  private norms(name: string): Uint8Array | null {
    let out: Uint8Array | null = null;
    for (let k = 0; k < this.inputs.length; k++) {
      const fp = this.inputs[k].seg.field(name);
      const n = fp ? fp.norms() : null;
      if (!n) continue;
      out ??= new Uint8Array(this.maxDoc);
      const m = this.docMaps[k];
      for (let d = 0; d < n.length; d++) if (m[d] >= 0) out[m[d]] = n[d];
    }
    return out;
  }

  numeric(name: string): ColumnMeta {
    const start = new Uint32Array(this.maxDoc + 1);
    let total = 0;
    const cols: (NumericDocValues | null)[] = this.inputs.map((i) => i.seg.numeric(name));
    for (let k = 0; k < cols.length; k++) {
      const dv = cols[k], m = this.docMaps[k];
      if (dv) for (let d = 0; d < m.length; d++) if (m[d] >= 0) total += dv.start[d + 1] - dv.start[d];
    }
    const values = new Float64Array(total);
    let o = 0;
    for (let k = 0; k < cols.length; k++) {
      const dv = cols[k], m = this.docMaps[k];
      for (let d = 0; d < m.length; d++) {
        if (m[d] < 0) continue;
        start[m[d]] = o;
        if (dv) for (let i = dv.start[d]; i < dv.start[d + 1]; i++) values[o++] = dv.values[i];
      }
    }
    start[this.maxDoc] = o;
    const ref = this.files.get('dvd')!.region(encodeNumeric(new NumericDocValues(start, values), this.maxDoc));
    return { name, ref };
  }

  ordinals(name: string): OrdinalColumnMeta {
    const cols: (OrdinalDocValues | null)[] = this.inputs.map((i) => i.seg.ordinals(name));
    const set = new Set<string>();
    const perInput: string[][] = cols.map((dv) => {
      const terms: string[] = [];
      if (dv) for (let o = 0; o < dv.terms.size; o++) { const t = dv.lookupOrd(o); terms.push(t); set.add(t); }
      return terms;
    });
    const merged = [...set].sort();
    const ordOf = new Map<string, number>();
    for (let i = 0; i < merged.length; i++) ordOf.set(merged[i], i);
    const start = new Uint32Array(this.maxDoc + 1);
    // Counted first, so the merged column is one typed array: a JS array of millions of ordinals held several
    // times their bytes in the worker's heap while it grew.
    let total = 0;
    for (let k = 0; k < cols.length; k++) {
      const dv = cols[k], m = this.docMaps[k];
      if (dv) for (let d = 0; d < m.length; d++) if (m[d] >= 0) total += dv.start[d + 1] - dv.start[d];
    }
    const ords = new Uint32Array(total);
    let o = 0;
    for (let k = 0; k < cols.length; k++) {
      const dv = cols[k], m = this.docMaps[k];
      const remap = Uint32Array.from(perInput[k], (t) => ordOf.get(t)!);
      for (let d = 0; d < m.length; d++) {
        if (m[d] < 0) continue;
        start[m[d]] = o;
        if (dv) for (let i = dv.start[d]; i < dv.start[d + 1]; i++) ords[o++] = remap[dv.ords[i]];
      }
    }
    start[this.maxDoc] = o;
    const terms: OrdinalTerms = { size: merged.length, term: (i) => merged[i] };
    const dvd = this.files.get('dvd')!;
    const ref = dvd.region(encodeOrdinals(new OrdinalDocValues(start, ords, terms), this.maxDoc));
    const termsRef = dvd.region(encodeOrdinalTerms(terms));
    return { name, ref, terms: termsRef, termCount: merged.length };
  }

  exists(name: string): ColumnMeta | null {
    const lists = this.inputs.map((i) => i.seg.exists(name));
    let max = 0;
    for (const e of lists) if (e) max += e.length;
    const out = new Uint32Array(max);
    const n = remapDocList(lists, this.docMaps, out);
    if (n === 0) return null;
    return { name, ref: this.files.get('dvd')!.region(encodeDocList(out.subarray(0, n))) };
  }

  nested(): { off: number; len: number } | null {
    if (!this.inputs.some((i) => i.seg.hasNested)) return null;
    const parentOf = new Int32Array(this.maxDoc).fill(-1);
    const paths: string[] = new Array(this.maxDoc).fill('');
    let any = false;
    for (let k = 0; k < this.inputs.length; k++) {
      const seg = this.inputs[k].seg, m = this.docMaps[k];
      const po = this.parents[k];
      if (po === null) continue;
      for (let d = 0; d < m.length; d++) {
        if (m[d] < 0) continue;
        if (po[d] !== -1) { parentOf[m[d]] = m[po[d]]; any = true; }
        paths[m[d]] = seg.pathOf(d);
      }
    }
    if (!any) return null;
    return this.files.get('dvd')!.region(encodeNested(parentOf, (d) => paths[d], this.maxDoc));
  }
}

/**
 * The live docs of each input's list, renumbered into `out`; returns how many. A function of its own: compiled
 * on-stack inside `exists`, the loop's code was dropped at the first statement after it (no feedback yet), and
 * `exists` was recompiled at write-out after write-out (`--trace-deopt`).
 */
function remapDocList(lists: (Uint32Array | null)[], docMaps: Int32Array[], out: Uint32Array): number {
  let n = 0;
  for (let k = 0; k < lists.length; k++) {
    const e = lists[k], m = docMaps[k];
    if (e) for (let i = 0; i < e.length; i++) { const nd = m[e[i]]; if (nd >= 0) out[n++] = nd; }
  }
  return n;
}
