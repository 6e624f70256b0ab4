/**
 * The index of one document shard (Lucene's IndexWriter with its near-real-time reader, in one class):
 *
 * - writes go to an indexing buffer (`SegmentBuilder`); the live copy of each `_id` is found through the buffer's
 *   id map and each segment's `_id` dictionary (Bloom filter first), and deleted before a new copy is added;
 * - `refresh()` turns the buffer into an in-memory segment and publishes a new reader (segments + live-docs
 *   snapshots); searches keep the reader they started with;
 * - in-memory segments go to disk (merged into one segment) when the worker's indexing buffer budget is
 *   exceeded and at every flush; `flush()` commits: the disk segments, their live docs and the translog
 *   position, durably;
 * - background merges (tiered policy) replace small disk segments with larger ones, dropping deleted docs,
 *   without blocking writes or searches (the segment writer yields); deletes made meanwhile are carried over.
 *
 * Memory held per shard: the buffer and in-memory segments (bounded by the budget), per disk segment its
 * sparse term indexes, `_id` index and Bloom filter, stored-block index and live docs, and the worker's
 * bounded block cache. Nothing per stored document beyond a few bytes.
 */
import { AnalyzerRegistry, expandSettings } from '../analysis/analyzers.ts';
import { SegmentBuilder } from '../postings/segment-builder.ts';
import type { MemorySegment } from '../postings/memory-segment.ts';
import type { Segment } from '../postings/segment.ts';
import type { MappingJson } from '../search/api.ts';
import { IndexReader } from '../search/index-reader.ts';
import type { BlockCache } from '../segments/block-cache.ts';
import type { CommitPoint } from '../segments/commit-point.ts';
import { DiskSegment } from '../segments/disk-segment.ts';
import { bloomHash1, bloomHash2 } from '../segments/bloom-filter.ts';
import { writeSegment } from '../segments/segment-writer.ts';
import { verifySegment } from '../segments/segment-verify.ts';
import { DocIndexer } from './doc-indexer.ts';
import { FieldInfos } from './field-infos.ts';
import { type CommitData, IndexFiles } from './index-files.ts';
import type { IndexingMemory } from './indexing-memory.ts';
import { deletedSince, SegmentEntry } from './segment-entry.ts';
import { DEFAULT_MERGE_SETTINGS, findExpungeDeletes, findForcedMerge, findMerge, type MergeCandidate, type TieredMergeSettings } from './tiered-merge-policy.ts';

export interface ShardIndexOptions {
  /** Directory of the shard's segments and commit points (`<shard>/index`). */
  dir: string;
  /** The index's settings as ES JSON (`analysis` and the rest). */
  indexSettings: Record<string, unknown>;
  cache: BlockCache;
  /** The worker's indexing buffer budget; null: never written out for memory (tests). */
  memory: IndexingMemory | null;
  mergeSettings?: TieredMergeSettings;
  /** Background merges (default on). */
  autoMerge?: boolean;
  /**
   * Called as each merge starts writing, its inputs counted as running: the one moment a test can read a running
   * merge's statistics without depending on how often the write yields (that is by elapsed time).
   */
  onMergeWriting?: () => void;
  /** Read and check every region of every segment at open (`index.shard.check_on_startup: checksum`). */
  verifyOnOpen?: boolean;
  /** Where failures of background work go (the shard is marked failed too). */
  onBackgroundError?: (e: unknown) => void;
}

/** What a flush waits on before its commit: the translog's appends becoming durable. */
export interface TranslogBarrier {
  /** True when every record appended so far is settled (durable, or refused by a failed batch). */
  idle(): boolean;
  drain(): Promise<void>;
  /** The error of a batch that failed (the log refuses appends since), or null. */
  failure(): unknown;
}

/** Version data of a live document. */
export interface DocVersion { seqNo: number; version: number; primaryTerm: number }

/** A live document as a real-time GET returns it. */
export interface LiveDoc extends DocVersion { source: Uint8Array; routing: string | null }

/** One segment as `_segments` and `_cat/segments` show it. */
export interface SegmentReport {
  name: string; generation: number; docs: number; deleted: number; sizeBytes: number; memoryBytes: number;
  committed: boolean; search: boolean; onDisk: boolean;
}

export interface IndexStats {
  /** Live Lucene docs (nested children included) and deleted ones, as searches see them. */
  docs: number; deleted: number;
  /** Live top-level docs (what `_count` counts), as searches see them. */
  roots: number;
  segments: number; sizeBytes: number; memoryBytes: number;
  merges: { total: number; current: number; currentDocs: number; currentBytes: number; totalDocs: number; totalBytes: number; totalTimeMs: number };
  refreshes: number; refreshMs: number; flushes: number; flushMs: number;
}

/** Thrown into a merge or write-out when the index closes under it. */
class IndexClosed extends Error {}

export class ShardIndex {
  readonly analyzers: AnalyzerRegistry;
  readonly defaultAnalyzer: string;
  readonly defaultSearchAnalyzer: string | undefined;
  private builder = new SegmentBuilder();
  /** Deleted buffered docs (whole blocks). */
  private bufferDead: number[] = [];
  private entries: SegmentEntry[] = [];
  private current: IndexReader;
  /** Per segment of the published reader: its counts as searches see them (taken when it was published). */
  private published = new Map<Segment, { docs: number; deleted: number; roots: number }>();
  private mapping: MappingJson | null = null;
  private infos: FieldInfos;
  private indexer: DocIndexer;
  private readonly files: IndexFiles;
  private writeOutRun: Promise<void> | null = null;
  /** Names of segments being written (write-outs, merges): their files must survive file cleanups meanwhile. */
  private readonly writing = new Set<string>();
  private mergeRun: Promise<void> | null = null;
  private closed = false;
  private writesSinceCheck = 0;
  /** A merge finished since the last refresh: the next scheduled refresh should publish it (Lucene's isCurrent). */
  mergedSinceRefresh = false;
  /** A merge finished since the last commit: the commit still names (and so keeps on disk) the merged inputs. */
  mergedSinceCommit = false;
  /** Set when background work hit an error that leaves the shard unusable (damaged files). */
  failure: Error | null = null;
  private readonly counters = { merges: 0, mergedDocs: 0, mergedBytes: 0, mergeMs: 0, refreshes: 0, refreshMs: 0, flushes: 0, flushMs: 0 };
  /** Inputs of the merges running now (docs, deleted included, and bytes), as `_stats` reports them. */
  private readonly running = { merges: 0, docs: 0, bytes: 0 };

  private constructor(private readonly opts: ShardIndexOptions, files: IndexFiles) {
    this.files = files;
    this.analyzers = new AnalyzerRegistry(opts.indexSettings);
    const s = expandSettings(opts.indexSettings);
    const analysis = (s.index?.analysis ?? s.analysis ?? {}) as Record<string, any>;
    this.defaultAnalyzer = analysis.analyzer?.default ? 'default' : 'standard';
    this.defaultSearchAnalyzer = analysis.analyzer?.default_search ? 'default_search' : undefined;
    this.infos = new FieldInfos(null, this.defaultAnalyzer, this.defaultSearchAnalyzer);
    this.indexer = new DocIndexer(this.infos, this.analyzers);
    this.current = new IndexReader([], [], this.infos, this.analyzers);
  }

  /** Opens the shard index in `opts.dir`: the last commit's segments, all visible. */
  static open(opts: ShardIndexOptions): ShardIndex {
    const { files, segments } = IndexFiles.open(opts.dir, opts.cache);
    if (opts.verifyOnOpen) {
      try {
        for (const o of segments) verifySegment(o.seg);
      } catch (e) {
        for (const o of segments) o.seg.close();
        throw e;
      }
    }
    const ix = new ShardIndex(opts, files);
    for (const o of segments) {
      const e = new SegmentEntry(o.seg, o.seg.info.numRoots, o.live, o.delCount, o.delRoots, true);
      e.committedDelGen = o.delGen;
      e.committedDelCount = o.delCount;
      ix.entries.push(e);
    }
    ix.publish();
    opts.memory?.register(ix);
    return ix;
  }

  /** The commit the index was opened from or last wrote (null before the first flush). */
  get lastCommit(): CommitPoint | null { return this.files.lastCommit; }

  /** Field view of a mapping (cached for the last mapping object seen). */
  fieldInfos(mapping?: MappingJson | null): FieldInfos {
    if (mapping && mapping !== this.mapping) {
      this.mapping = mapping;
      this.infos = new FieldInfos(mapping, this.defaultAnalyzer, this.defaultSearchAnalyzer);
      this.indexer = new DocIndexer(this.infos, this.analyzers);
    }
    return this.infos;
  }

  // ── writes and real-time reads ─────────────────────────────────────────────

  /**
   * Adds `id` with its parsed source (already checked against `mapping`), replacing its live copy unless
   * `isNew` says there is none (auto-generated ids skip the lookup, as Elasticsearch's append-only path).
   */
  index(id: string, source: Record<string, unknown>, sourceBytes: Uint8Array, routing: string | null, v: DocVersion, mapping: MappingJson, isNew = false): void {
    this.checkOpen();
    this.fieldInfos(mapping);
    if (!isNew) this.delete(id);
    const root = this.indexer.index(this.builder, id, source);
    this.builder.setStored(root, sourceBytes, routing, v.version, v.seqNo, v.primaryTerm);
    this.builder.setLive(id, root);
    if (++this.writesSinceCheck >= 256) {
      this.writesSinceCheck = 0;
      this.opts.memory?.check((e) => this.backgroundError(e));
    }
  }

  /** Deletes the live copy of `id`, if any; returns whether there was one. */
  delete(id: string): boolean {
    this.checkOpen();
    const b = this.builder.deleteLive(id);
    if (b >= 0) {
      this.bufferDead.push(b);
      for (let d = b - 1; d >= 0 && this.builder.isChild(d); d--) this.bufferDead.push(d);
      return true;
    }
    if (!this.locate(id)) return false;
    this.found.entry.deleteBlock(this.found.doc);
    return true;
  }

  /** Version data of the live copy of `id` (real time: unrefreshed writes included), or null. */
  version(id: string): DocVersion | null {
    const b = this.builder.liveDoc(id);
    if (b >= 0) return { seqNo: this.builder.seqNo(b), version: this.builder.version(b), primaryTerm: this.builder.primaryTerm(b) };
    if (!this.locate(id)) return null;
    const f = this.found;
    if (f.seqNo >= 0) return { seqNo: f.seqNo, version: f.version, primaryTerm: f.primaryTerm };
    const s = f.entry.seg.stored(f.doc);
    return { seqNo: s.seqNo, version: s.version, primaryTerm: s.primaryTerm };
  }

  /** The live copy of `id` with its source (real-time GET), or null. */
  get(id: string): LiveDoc | null {
    const b = this.builder.liveDoc(id);
    if (b >= 0) {
      return { source: this.builder.storedSource(b)!, routing: this.builder.storedRouting(b), seqNo: this.builder.seqNo(b), version: this.builder.version(b), primaryTerm: this.builder.primaryTerm(b) };
    }
    if (!this.locate(id)) return null;
    const s = this.found.entry.seg.stored(this.found.doc);
    return { source: s.source, routing: s.routing, seqNo: s.seqNo, version: s.version, primaryTerm: s.primaryTerm };
  }

  /** Where `locate` found the live copy (not re-entrant); seqNo etc. are -1 unless a disk `_id` entry gave them. */
  private readonly found = { entry: null as unknown as SegmentEntry, doc: -1, seqNo: -1, version: -1, primaryTerm: -1 };

  /**
   * Finds the live copy of `id` in the segments (not the buffer), newest first: in-memory segments through
   * their id tables, disk segments through their `_id` dictionaries, the Bloom hashes computed once for all.
   */
  private locate(id: string): boolean {
    const f = this.found;
    let h1 = 0, h2 = 0, hashed = false;
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i];
      const disk = e.disk;
      if (disk === null) {
        const d = e.seg.lookupId(id);
        if (d < 0 || !e.isLive(d)) continue;
        f.entry = e; f.doc = d; f.seqNo = f.version = f.primaryTerm = -1;
        return true;
      }
      if (!hashed) { h1 = bloomHash1(id); h2 = bloomHash2(id); hashed = true; }
      const hit = disk.lookupHashed(id, h1, h2);
      if (hit === null || !e.isLive(hit.doc)) continue;
      f.entry = e; f.doc = hit.doc; f.seqNo = hit.seqNo; f.version = hit.version; f.primaryTerm = hit.primaryTerm;
      return true;
    }
    return false;
  }

  // ── visibility ────────────────────────────────────────────────────────────

  /** Makes every write so far visible to searches. */
  refresh(): void {
    this.checkOpen();
    const started = performance.now();
    this.cutBuffer(true);
    for (const e of this.entries) e.visible = true;
    this.publish();
    this.mergedSinceRefresh = false;
    this.counters.refreshes++;
    this.counters.refreshMs += performance.now() - started;
    this.maybeMerge();
  }

  /**
   * The reader published by the last refresh. With `mapping`, field views follow it even for a shard that has
   * not indexed a document under that mapping yet (sorts and queries need the types).
   */
  reader(mapping?: MappingJson | null): IndexReader {
    if (mapping && this.fieldInfos(mapping) !== this.current.infos) {
      const r = new IndexReader(this.current.segments, this.current.live, this.infos, this.analyzers);
      r.acquire();
      this.current.release();
      this.current = r;
    }
    return this.current;
  }

  /** The buffered docs as a new in-memory segment (visible or not), with buffered deletes applied. */
  private cutBuffer(visible: boolean): void {
    if (this.builder.docCount === 0) return;
    const seg: MemorySegment = this.builder.build(this.files.newSegmentName());
    let live: Uint8Array | null = null, delCount = 0, delRoots = 0;
    if (this.bufferDead.length) {
      live = new Uint8Array(seg.maxDoc).fill(1);
      const parentOf = seg.hasNested ? seg.parentOf() : null;
      for (const d of this.bufferDead) {
        if (live[d] === 0) continue;
        live[d] = 0;
        delCount++;
        if (parentOf === null || parentOf[d] === -1) delRoots++;
      }
    }
    let roots = seg.maxDoc;
    if (seg.hasNested) { roots = 0; const p = seg.parentOf(); for (let d = 0; d < seg.maxDoc; d++) if (p[d] === -1) roots++; }
    const entry = new SegmentEntry(seg, roots, live, delCount, delRoots, visible);
    this.entries.push(entry);
    this.builder = new SegmentBuilder(this.builder);
    this.bufferDead = [];
  }

  /** Publishes the visible segments as the current reader (which holds them open until replaced). */
  private publish(): void {
    const segs: Segment[] = [], live = [];
    this.published = new Map();
    for (const e of this.entries) {
      if (!e.visible) continue;
      segs.push(e.seg);
      live.push(e.shareLive());
      this.published.set(e.seg, { docs: e.liveDocs(), deleted: e.delCount, roots: e.liveRoots() });
    }
    const r = new IndexReader(segs, live, this.infos, this.analyzers);
    r.acquire();
    const dropped = this.current.segments.some((seg) => !segs.includes(seg));
    this.current.release();
    this.current = r;
    // Merged inputs the old reader still showed kept their files at the merge and at any commit made before this
    // refresh; a commit that already names the merged segment leaves nothing else to delete them.
    if (dropped) this.files.deleteUnreferenced(this.inUse());
  }

  /** The live docs the current reader shows for `e`'s segment (undefined when the reader does not show it). */
  private publishedLive(e: SegmentEntry): Uint8Array | null | undefined {
    const i = this.current.segments.indexOf(e.seg);
    return i < 0 ? undefined : this.current.live[i];
  }

  /**
   * Swaps the segments a write-out or merge replaced for their new segment in the current reader, so the
   * reader stops holding them (in-memory segments' memory, merged segments' files). The new segment was written
   * from the live docs the reader showed, so it shows exactly the same documents: nothing changes for searches.
   */
  private republishReplacing(old: Segment[], entry: SegmentEntry): void {
    const r = this.current;
    const at = r.segments.indexOf(old[0]);
    if (at < 0) return;
    const segs: Segment[] = [], lives: (Uint8Array | null)[] = [];
    for (let i = 0; i < r.segments.length; i++) {
      if (i === at) { segs.push(entry.seg); lives.push(null); continue; }
      if (old.includes(r.segments[i])) continue;
      segs.push(r.segments[i]); lives.push(r.live[i]);
    }
    for (const s of old) this.published.delete(s);
    this.published.set(entry.seg, { docs: entry.seg.maxDoc, deleted: 0, roots: entry.numRoots });
    const next = new IndexReader(segs, lives, this.infos, this.analyzers);
    next.acquire();
    r.release();
    this.current = next;
  }

  // ── memory, disk, commits ─────────────────────────────────────────────────

  /** Bytes held by the indexing buffer and the in-memory segments. */
  memoryBytes(): number {
    let n = this.builder.bufferedBytes;
    for (const e of this.entries) if (!e.seg.onDisk) n += e.seg.sizeBytes;
    return n;
  }

  get writingOut(): boolean { return this.writeOutRun !== null; }

  /** Writes the buffer and the in-memory segments to disk (not committed, not fsynced); searches are unaffected. */
  writeOutMemory(): Promise<void> {
    this.cutBuffer(false);
    return this.writeOut(false);
  }

  private async writeOut(sync: boolean): Promise<void> {
    while (this.writeOutRun) await this.writeOutRun;
    // Both groups are chosen before the first is written: a refresh during that write can make a hidden
    // segment visible, and choosing the second group afterwards by visibility would skip it, leaving a
    // flush's own buffer out of its commit.
    const pending = this.entries.filter((e) => !e.seg.onDisk && !e.busy);
    const shown = pending.filter((e) => this.publishedLive(e) !== undefined);
    const hidden = pending.filter((e) => !shown.includes(e));
    this.writeOutRun = (async () => {
      for (const group of [shown, hidden]) if (group.length) await this.replaceWithDisk(group, sync);
    })().finally(() => { this.writeOutRun = null; });
    return this.writeOutRun;
  }

  /**
   * Commits everything written so far: the buffer and in-memory segments go to disk, every segment file and
   * the new live docs are fsynced, then the commit point naming them and `data` (the translog position all
   * earlier operations precede) is written durably. Visibility to searches does not change.
   */
  async flush(data: CommitData, translog?: TranslogBarrier): Promise<CommitPoint> {
    this.checkOpen();
    const started = performance.now();
    this.mergedSinceCommit = false;
    this.cutBuffer(false);
    await this.writeOut(true);
    // Operations after the translog cut may already have changed these segments (an update's delete of the
    // old copy lands in a disk segment's live docs at once). Their records must be durable before the commit
    // records those effects, or a crash keeps the delete and loses the new version.
    if (translog) {
      while (!translog.idle()) await translog.drain();
      // A batch that failed meanwhile refused operations these segments may already show (that delete of an
      // old copy): committing would make them durable. The shard is reopened from disk instead.
      const failed = translog.failure();
      if (failed !== null) throw failed;
    }
    const commit = this.files.commit(this.entries, data, this.inUse());
    this.counters.flushes++;
    this.counters.flushMs += performance.now() - started;
    return commit;
  }

  /** Names of the segments this index or its readers may still read, and those being written. */
  private inUse(): Set<string> {
    const s = new Set<string>(this.writing);
    for (const e of this.entries) s.add(e.seg.name);
    for (const seg of this.current.segments) s.add(seg.name);
    return s;
  }

  /**
   * Writes one disk segment from `group`'s live docs and puts it in their place (at the first one's position),
   * carrying over deletes made while it was written. The group's entries stay readable throughout.
   */
  private async replaceWithDisk(group: SegmentEntry[], sync: boolean): Promise<void> {
    // Disk inputs are read through merge views (private caches), not the cache searches share.
    // A write-out of in-memory segments the current reader shows writes the live docs the reader shows, so the
    // reader can switch to the new segment at once (releasing their memory) without a document disappearing
    // before a refresh; later deletes are carried over like those made during the write. A merge writes the
    // current live docs (dropping every delete, as Lucene's merges do) and its inputs stay in the current
    // reader until the next refresh.
    const views = group.map((e) => e.disk?.mergeView() ?? null);
    const writeOut = !group[0].seg.onDisk;
    const republish = writeOut && group.every((e) => this.publishedLive(e) !== undefined);
    const inputs = group.map((e, k) => {
      const shown = writeOut ? this.publishedLive(e) : undefined;
      return { seg: views[k] ?? e.seg, live: shown === undefined ? e.shareLive() : shown };
    });
    for (const e of group) { e.busy = true; e.seg.incRef(); }
    const started = performance.now();
    const merge = group.every((e) => e.seg.onDisk);
    let inputDocs = 0, inputBytes = 0;
    for (const e of group) { inputDocs += e.seg.maxDoc; inputBytes += e.seg.sizeBytes; }
    if (merge) { this.running.merges++; this.running.docs += inputDocs; this.running.bytes += inputBytes; }
    try {
      const name = this.files.newSegmentName();
      this.writing.add(name);
      let written;
      try {
        if (merge) this.opts.onMergeWriting?.();
        written = await writeSegment(this.opts.dir, name, inputs, { sync, yieldEvery: () => this.yieldUnlessClosed() });
      } finally {
        this.writing.delete(name);
      }
      const disk = DiskSegment.open(this.opts.dir, name, this.opts.cache);
      const entry = new SegmentEntry(disk, written.info.numRoots, null, 0, 0, group.every((e) => e.visible));
      entry.unsynced = !sync;
      const carried: number[] = [];
      for (let k = 0; k < group.length; k++) deletedSince(inputs[k].live, group[k].live, written.docMaps[k], carried);
      entry.deleteDocs(carried);
      const at = this.entries.indexOf(group[0]);
      const rest = this.entries.filter((e) => !group.includes(e));
      rest.splice(Math.min(at, rest.length), 0, entry);
      this.entries = rest;
      for (const e of group) { e.disk?.openAll(); e.seg.decRef(); }
      if (republish) this.republishReplacing(group.map((e) => e.seg), entry);
      if (merge) {
        this.mergedSinceRefresh = true;
        this.mergedSinceCommit = true;
        this.counters.merges++;
        // As Lucene's merge statistics: the inputs' docs (deleted ones included) and bytes.
        this.counters.mergedDocs += inputDocs;
        this.counters.mergedBytes += inputBytes;
        this.counters.mergeMs += performance.now() - started;
      }
      this.files.deleteUnreferenced(this.inUse());
    } finally {
      if (merge) { this.running.merges--; this.running.docs -= inputDocs; this.running.bytes -= inputBytes; }
      for (const v of views) v?.close();
      for (const e of group) { e.busy = false; e.seg.decRef(); }
    }
  }

  private async yieldUnlessClosed(): Promise<void> {
    await new Promise<void>((r) => setImmediate(r));
    if (this.closed) throw new IndexClosed('index closed');
  }

  // ── merges ────────────────────────────────────────────────────────────────

  private candidates(pick: (e: SegmentEntry) => boolean): { cands: MergeCandidate[]; byKey: SegmentEntry[] } {
    const byKey = this.entries.filter((e) => e.seg.onDisk && e.visible && !e.busy && pick(e));
    return { cands: byKey.map((e, key) => ({ key, sizeBytes: e.seg.sizeBytes, maxDoc: e.seg.maxDoc, delCount: e.delCount })), byKey };
  }

  /** A background merge is running. */
  get merging(): boolean { return this.mergeRun !== null; }

  /** Starts a background merge when the policy finds one (one at a time per shard). */
  maybeMerge(): void {
    if (this.mergeRun || this.closed || this.opts.autoMerge === false) return;
    const { cands, byKey } = this.candidates(() => true);
    const keys = findMerge(cands, this.opts.mergeSettings ?? DEFAULT_MERGE_SETTINGS);
    if (!keys) return;
    this.mergeRun = this.replaceWithDisk(keys.map((k) => byKey[k]), false)
      .catch((e) => { if (!(e instanceof IndexClosed)) this.backgroundError(e); })
      .finally(() => { this.mergeRun = null; this.maybeMerge(); });
  }

  /**
   * `_forcemerge`: writes the in-memory segments out, then merges until at most `maxSegments` remain (or, with
   * `onlyExpungeDeletes`, rewrites segments with many deletes). Merged segments become visible at the next
   * refresh, as in Elasticsearch.
   */
  async forceMerge(maxSegments: number, onlyExpungeDeletes: boolean): Promise<void> {
    this.checkOpen();
    await this.writeOut(false);
    for (;;) {
      while (this.mergeRun) await this.mergeRun;
      const { cands, byKey } = this.candidates(() => true);
      const keys = onlyExpungeDeletes ? findExpungeDeletes(cands) : findForcedMerge(cands, maxSegments);
      if (!keys) return;
      await this.replaceWithDisk(keys.map((k) => byKey[k]), false);
      if (onlyExpungeDeletes) return;
    }
  }

  private backgroundError(e: unknown): void {
    this.failure ??= e instanceof Error ? e : new Error(String(e));
    this.opts.onBackgroundError?.(e);
  }

  // ── reporting and lifetime ────────────────────────────────────────────────

  /** Counts as searches see them (the last refresh), sizes as they are now. */
  stats(): IndexStats {
    let sizeBytes = 0;
    for (const e of this.entries) if (e.seg.onDisk) sizeBytes += e.seg.sizeBytes;
    const p = { docs: 0, deleted: 0, roots: 0 };
    for (const c of this.published.values()) { p.docs += c.docs; p.deleted += c.deleted; p.roots += c.roots; }
    const c = this.counters;
    return {
      docs: p.docs, deleted: p.deleted, roots: p.roots, segments: this.published.size, sizeBytes, memoryBytes: this.memoryBytes(),
      merges: {
        total: c.merges, current: this.running.merges, currentDocs: this.running.docs, currentBytes: this.running.bytes,
        totalDocs: c.mergedDocs, totalBytes: c.mergedBytes, totalTimeMs: Math.round(c.mergeMs),
      },
      refreshes: c.refreshes, refreshMs: Math.round(c.refreshMs), flushes: c.flushes, flushMs: Math.round(c.flushMs),
    };
  }

  segments(): SegmentReport[] {
    const committed = new Set(this.files.lastCommit?.segments.map((s) => s.name) ?? []);
    return this.entries.map((e) => ({
      name: e.seg.name, generation: parseInt(e.seg.name.slice(1), 36), docs: e.liveDocs(), deleted: e.delCount,
      // A disk segment holds its `.tip` (term indexes, Bloom filter, stored-block index) in memory.
      sizeBytes: e.seg.onDisk ? e.seg.sizeBytes : 0, memoryBytes: e.disk ? e.disk.info.fileBytes.tip : e.seg.sizeBytes,
      committed: committed.has(e.seg.name), search: e.visible, onDisk: e.seg.onDisk,
    }));
  }

  /** Waits for background work, then releases every segment. Unflushed writes are left to the translog. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.opts.memory?.unregister(this);
    await Promise.allSettled([this.writeOutRun, this.mergeRun]);
    this.current.release();
    for (const e of this.entries) { e.disk?.openAll(); e.seg.decRef(); }
    this.entries = [];
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('shard index is closed');
    if (this.failure) throw this.failure;
  }
}
