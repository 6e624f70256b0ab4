/**
 * The files of one shard index directory: naming new segments, opening the last commit, committing, and
 * deleting what no commit and no open segment needs (Lucene's IndexFileDeleter). The directory holds segment
 * files (`_<name>.<ext>`), live-docs files (`_<name>_<gen>.liv`) and commit points (`segments_<gen>`); see
 * docs/format.md "Document segments".
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { COMMIT_POINT_PREFIX } from '../codec/format-ids.ts';
import type { BlockCache } from '../segments/block-cache.ts';
import { commitFileName, type CommitPoint, listCommits, readCommitPoint, writeCommitPoint } from '../segments/commit-point.ts';
import { syncDirSync } from '../store/durable-files.ts';
import { DiskSegment, segmentFile } from '../segments/disk-segment.ts';
import { liveDocsFile, readLiveDocs, writeLiveDocs } from '../segments/live-docs-file.ts';
import { SEGMENT_EXTENSIONS } from '../segments/segment-info.ts';
import type { SegmentEntry } from './segment-entry.ts';

/** What a commit records besides its segments. */
export interface CommitData { translogSegment: number; translogOffset: number; maxSeqNo: number }

export interface OpenedSegment { seg: DiskSegment; live: Uint8Array | null; delCount: number; delRoots: number; delGen: number }

const SEGMENT_NAME_RE = /^_([0-9a-z]+)(?:\.|_)/;

export class IndexFiles {
  private nextSegment = 0;
  lastCommit: CommitPoint | null = null;

  private constructor(readonly dir: string) {}

  /**
   * Opens `dir` (created when missing): reads the newest commit point, opens its segments with their live
   * docs, and deletes every other segment or commit file (left by a crash or by merges since). A damaged
   * commit point or segment throws `CorruptionError`; nothing is skipped silently.
   */
  static open(dir: string, cache: BlockCache): { files: IndexFiles; segments: OpenedSegment[] } {
    mkdirSync(dir, { recursive: true });
    const files = new IndexFiles(dir);
    for (const f of readdirSync(dir)) {
      const m = SEGMENT_NAME_RE.exec(f);
      if (m) files.nextSegment = Math.max(files.nextSegment, parseInt(m[1], 36) + 1);
    }
    const gens = listCommits(dir);
    const segments: OpenedSegment[] = [];
    if (gens.length > 0) {
      const commit = readCommitPoint(dir, gens[0]);
      files.lastCommit = commit;
      try {
        for (const s of commit.segments) {
          const seg = DiskSegment.open(dir, s.name, cache);
          segments.push({ seg, live: null, delCount: s.delCount, delRoots: s.delRoots, delGen: s.delGen });
          if (s.delGen > 0) segments[segments.length - 1].live = readLiveDocs(dir, s.name, s.delGen, seg.maxDoc, s.delCount);
        }
      } catch (e) {
        for (const o of segments) o.seg.close();
        throw e;
      }
    }
    files.deleteUnreferenced(new Set(segments.map((s) => s.seg.name)));
    return { files, segments };
  }

  /** A segment name never used in this directory. */
  newSegmentName(): string { return '_' + (this.nextSegment++).toString(36); }

  /**
   * Commits the disk segments of `entries` durably: fsyncs the files of segments written without sync, writes
   * new live-docs generations for segments with uncommitted deletes, then the commit point; finally deletes
   * files that neither this commit nor `inUse` segments need.
   */
  commit(entries: readonly SegmentEntry[], data: CommitData, inUse: ReadonlySet<string>): CommitPoint {
    const segs = [];
    for (const e of entries) {
      const disk = e.disk;
      if (!disk) continue;
      if (e.unsynced) { for (const ext of [...SEGMENT_EXTENSIONS, 'si' as const]) fsyncFile(segmentFile(this.dir, disk.name, ext)); e.unsynced = false; }
      if (e.delCount !== e.committedDelCount) {
        const gen = e.committedDelGen + 1;
        writeLiveDocs(this.dir, disk.name, gen, e.live!);
        e.committedDelGen = gen;
        e.committedDelCount = e.delCount;
      }
      segs.push({ name: disk.name, delGen: e.committedDelGen, delCount: e.delCount, delRoots: e.delRoots });
    }
    syncDirSync(this.dir);
    const commit: CommitPoint = { generation: (this.lastCommit?.generation ?? 0) + 1, ...data, segments: segs };
    writeCommitPoint(this.dir, commit);
    this.lastCommit = commit;
    this.deleteUnreferenced(inUse);
    return commit;
  }

  /** Deletes files of segments neither the last commit nor `inUse` names, stale live docs and old commits. */
  deleteUnreferenced(inUse: ReadonlySet<string>): void {
    const keepLive = new Set<string>();
    const keepSegs = new Set(inUse);
    for (const s of this.lastCommit?.segments ?? []) {
      keepSegs.add(s.name);
      if (s.delGen > 0) keepLive.add(liveDocsFile(s.name, s.delGen));
    }
    const current = this.lastCommit ? commitFileName(this.lastCommit.generation) : null;
    for (const f of readdirSync(this.dir)) {
      if (f.startsWith(COMMIT_POINT_PREFIX)) { if (f !== current) rmSync(join(this.dir, f), { force: true }); continue; }
      const m = SEGMENT_NAME_RE.exec(f);
      if (!m) continue;
      const name = '_' + m[1];
      // Live-docs files are written only by commits, so any generation the last commit does not name is stale.
      if (f.endsWith('.liv')) { if (!keepLive.has(f)) rmSync(join(this.dir, f), { force: true }); continue; }
      if (!keepSegs.has(name)) rmSync(join(this.dir, f), { force: true });
    }
  }

  /** Generation of the last commit (0 before the first). */
  get generation(): number { return this.lastCommit?.generation ?? 0; }
}

function fsyncFile(path: string): void {
  const fd = openSync(path, 'r');
  try { fsyncSync(fd); } finally { closeSync(fd); }
}
