/**
 * The search index of one document shard: writes go to a segment builder, `refresh()` freezes the builder
 * into an immutable segment and publishes a new `IndexReader` (segments + live-docs snapshot). Searches
 * hold the reader they started with, so writes and later refreshes never disturb them. Deleted docs keep
 * counting in term statistics until their segment is merged, as in Lucene.
 */
import type { MappingJson, ShardIndexApi } from '../search/api.ts';
import { AnalyzerRegistry, expandSettings } from '../analysis/analyzers.ts';
import { SegmentBuilder } from '../postings/segment-builder.ts';
import type { Segment } from '../postings/segment.ts';
import { FieldInfos } from './field-infos.ts';
import { DocIndexer } from './doc-indexer.ts';
import { IndexReader } from '../search/index-reader.ts';
import { mergeSegments } from '../postings/segment-merger.ts';

interface Loc { seg: Segment | null; doc: number }

/** Merge when more than this many segments exist (smallest ones first). */
const MAX_SEGMENTS = 8;

export class ShardIndex implements ShardIndexApi {
  readonly analyzers: AnalyzerRegistry;
  readonly defaultAnalyzer: string;
  readonly defaultSearchAnalyzer: string | undefined;
  private builder = new SegmentBuilder();
  private bufferDead = new Set<number>();
  private readonly ids = new Map<string, Loc>();
  /** Locations handed out since the last refresh (so a refresh need not walk the whole id map). */
  private bufferLocs: Loc[] = [];
  private pendingDeletes = new Map<Segment, number[]>();
  private mapping: MappingJson | null = null;
  private infos: FieldInfos;
  private indexer: DocIndexer;
  private current: IndexReader;

  constructor(indexSettings: Record<string, unknown> = {}) {
    this.analyzers = new AnalyzerRegistry(indexSettings);
    const s = expandSettings(indexSettings);
    const analysis = (s.index?.analysis ?? s.analysis ?? {}) as Record<string, any>;
    this.defaultAnalyzer = analysis.analyzer?.default ? 'default' : 'standard';
    this.defaultSearchAnalyzer = analysis.analyzer?.default_search ? 'default_search' : undefined;
    this.infos = new FieldInfos(null, this.defaultAnalyzer, this.defaultSearchAnalyzer);
    this.indexer = new DocIndexer(this.infos, this.analyzers);
    this.current = new IndexReader([], [], this.infos, this.analyzers);
  }

  /** Field view of a mapping (cached for the last mapping object seen). */
  fieldInfos(mapping?: MappingJson | null): FieldInfos {
    if (mapping && mapping !== this.mapping) {
      this.mapping = mapping;
      this.infos = new FieldInfos(mapping, this.defaultAnalyzer, this.defaultSearchAnalyzer);
      this.indexer = new DocIndexer(this.infos, this.analyzers);
    }
    return this.infos;
  }

  index(id: string, source: Record<string, unknown>, mapping: MappingJson): void {
    this.fieldInfos(mapping);
    this.delete(id);
    const root = this.indexer.index(this.builder, id, source);
    const loc: Loc = { seg: null, doc: root };
    this.ids.set(id, loc);
    this.bufferLocs.push(loc);
  }

  delete(id: string): void {
    const loc = this.ids.get(id);
    if (!loc) return;
    this.ids.delete(id);
    if (loc.seg === null) {
      for (const d of blockOf(null, loc.doc, this.builder)) this.bufferDead.add(d);
      return;
    }
    let list = this.pendingDeletes.get(loc.seg);
    if (!list) { list = []; this.pendingDeletes.set(loc.seg, list); }
    for (const d of blockOf(loc.seg, loc.doc, null)) list.push(d);
  }

  refresh(): void {
    const prev = this.current;
    const segments = prev.segments.slice();
    const live = prev.live.slice();
    for (const [seg, docs] of this.pendingDeletes) {
      const i = segments.indexOf(seg);
      if (i < 0) continue;
      const l = live[i] ? live[i]!.slice() : new Uint8Array(seg.maxDoc).fill(1);
      for (const d of docs) l[d] = 0;
      live[i] = l;
    }
    this.pendingDeletes = new Map();
    if (this.builder.docCount > 0) {
      const seg = this.builder.build();
      let l: Uint8Array | null = null;
      if (this.bufferDead.size) { l = new Uint8Array(seg.maxDoc).fill(1); for (const d of this.bufferDead) l[d] = 0; }
      segments.push(seg);
      live.push(l);
      // Locations of docs deleted meanwhile are no longer in the id map; re-pointing them is harmless.
      const locs = this.bufferLocs;
      for (let i = 0; i < locs.length; i++) if (locs[i].seg === null) locs[i].seg = seg;
      this.bufferLocs = [];
      this.builder = new SegmentBuilder();
      this.bufferDead = new Set();
    }
    if (segments.length > MAX_SEGMENTS) this.merge(segments, live);
    this.current = new IndexReader(segments, live, this.infos, this.analyzers);
  }

  /** Merges the smallest segments into one, dropping deleted docs, and re-points the id map. */
  private merge(segments: Segment[], live: (Uint8Array | null)[]): void {
    const order = segments.map((s, i) => i).sort((a, b) => segments[a].maxDoc - segments[b].maxDoc);
    const pick = order.slice(0, segments.length - MAX_SEGMENTS + 4).sort((a, b) => a - b);
    const { segment, docMaps } = mergeSegments(pick.map((i) => segments[i]), pick.map((i) => live[i]));
    const picked = new Set(pick.map((i) => segments[i]));
    // Only ids of the merged segments can move: look those up rather than walking every id of the shard.
    for (let k = 0; k < pick.length; k++) {
      const old = segments[pick[k]], ids = old.ids, map = docMaps[k];
      for (let d = 0; d < old.maxDoc; d++) {
        const id = ids[d];
        if (id === '' || map[d] < 0) continue;
        const loc = this.ids.get(id);
        if (loc !== undefined && loc.seg === old && loc.doc === d) { loc.doc = map[d]; loc.seg = segment; }
      }
    }
    const newSegs: Segment[] = [], newLive: (Uint8Array | null)[] = [];
    for (let i = 0; i < segments.length; i++) {
      if (i === pick[0]) { newSegs.push(segment); newLive.push(null); }
      if (!picked.has(segments[i])) { newSegs.push(segments[i]); newLive.push(live[i]); }
    }
    segments.length = 0; live.length = 0;
    segments.push(...newSegs); live.push(...newLive);
  }

  /**
   * The reader published by the last refresh. With `mapping`, field views follow it even for a shard that
   * has not indexed a document under that mapping yet (sorts and queries need the types).
   */
  reader(mapping?: MappingJson | null): IndexReader {
    if (mapping && this.fieldInfos(mapping) !== this.current.infos) {
      this.current = new IndexReader(this.current.segments, this.current.live, this.infos, this.analyzers);
    }
    return this.current;
  }

  docCount(): number { return this.current.liveDocCount(); }

  deletedCount(): number { return this.current.maxDoc() - this.current.liveDocCount(); }
}

/** Docs of the block whose root is `root`: its nested children (contiguous, just before it) and itself. */
function blockOf(seg: Segment | null, root: number, builder: SegmentBuilder | null): number[] {
  const out = [root];
  if (seg) {
    for (let d = root - 1; d >= 0 && seg.parentOf[d] !== -1; d--) out.push(d);
  } else if (builder) {
    for (let d = root - 1; d >= 0 && builder.isChild(d); d--) out.push(d);
  }
  return out;
}
