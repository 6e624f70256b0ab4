/**
 * Which segments to merge, after Lucene's TieredMergePolicy: segments are sized by their bytes not taken by
 * deleted docs; the index may hold about `segmentsPerTier` segments per size tier (tiers grow by
 * `maxMergeAtOnce`×, the smallest floored at `floorSegmentBytes`); past that budget, the candidate run of up to
 * `maxMergeAtOnce` similar-sized segments with the lowest score is merged — score = skew (largest / total) ×
 * total^0.05 × (live fraction)², so balanced merges that reclaim deletes win. Segments larger than half of
 * `maxMergedSegmentBytes` are left alone, as in Lucene.
 */

export interface MergeCandidate {
  /** The caller's handle, returned in the chosen merge. */
  readonly key: number;
  readonly sizeBytes: number;
  readonly maxDoc: number;
  readonly delCount: number;
}

export interface TieredMergeSettings {
  maxMergeAtOnce: number;
  segmentsPerTier: number;
  floorSegmentBytes: number;
  maxMergedSegmentBytes: number;
}

/** Elasticsearch 6.8's `index.merge.policy.*` defaults. */
export const DEFAULT_MERGE_SETTINGS: TieredMergeSettings = {
  maxMergeAtOnce: 10,
  segmentsPerTier: 10,
  floorSegmentBytes: 2 * 1024 * 1024,
  maxMergedSegmentBytes: 5 * 1024 * 1024 * 1024,
};

function liveBytes(c: MergeCandidate): number {
  return c.maxDoc === 0 ? 0 : c.sizeBytes * (1 - c.delCount / c.maxDoc);
}

/** The keys of one merge to run now, or null when the index is within budget. */
export function findMerge(segments: readonly MergeCandidate[], s: TieredMergeSettings = DEFAULT_MERGE_SETTINGS): number[] | null {
  // Fully deleted segments are merged away (dropped) first, whatever their size.
  const dead = segments.filter((c) => c.maxDoc > 0 && c.delCount === c.maxDoc);
  if (dead.length) return dead.slice(0, s.maxMergeAtOnce).map((c) => c.key);
  const eligible = segments.filter((c) => liveBytes(c) <= s.maxMergedSegmentBytes / 2).sort((a, b) => liveBytes(b) - liveBytes(a));
  if (eligible.length < 2) return null;
  let total = 0, min = Infinity;
  for (const c of eligible) { const b = liveBytes(c); total += b; if (b < min) min = b; }
  let level = Math.max(min, s.floorSegmentBytes), left = total, allowed = 0;
  for (;;) {
    const atLevel = left / level;
    if (atLevel < s.segmentsPerTier) { allowed += Math.ceil(atLevel); break; }
    allowed += s.segmentsPerTier;
    left -= s.segmentsPerTier * level;
    level *= s.maxMergeAtOnce;
  }
  if (eligible.length <= Math.max(allowed, 1)) return null;
  let best: MergeCandidate[] | null = null, bestScore = Infinity;
  for (let start = 0; start <= eligible.length - 2; start++) {
    const run: MergeCandidate[] = [];
    let bytes = 0, tooLarge = false;
    for (let i = start; i < eligible.length && run.length < s.maxMergeAtOnce; i++) {
      const b = liveBytes(eligible[i]);
      if (bytes + b > s.maxMergedSegmentBytes) { tooLarge = true; continue; }
      run.push(eligible[i]);
      bytes += b;
    }
    if (run.length < 2) continue;
    const score = mergeScore(run, tooLarge, s);
    if (score < bestScore) { bestScore = score; best = run; }
  }
  return best ? best.map((c) => c.key) : null;
}

function mergeScore(run: MergeCandidate[], tooLarge: boolean, s: TieredMergeSettings): number {
  let before = 0, after = 0, floored = 0, largest = 0;
  for (const c of run) {
    before += c.sizeBytes;
    const b = liveBytes(c);
    after += b;
    // Tiny segments count as floor-sized, so merging many of them is not scored as badly skewed (Lucene's floorSize).
    const f = Math.max(b, s.floorSegmentBytes);
    floored += f;
    largest = Math.max(largest, f);
  }
  const skew = tooLarge ? 1 / s.maxMergeAtOnce : largest / floored;
  const liveFraction = before === 0 ? 1 : after / before;
  return skew * Math.pow(Math.max(after, 1), 0.05) * liveFraction * liveFraction;
}

/**
 * The merge that brings the segment count down to `maxSegments` (forced merge): the smallest segments together,
 * all of them for a target of 1 (which also rewrites a lone segment that has deletes). Null when already there.
 */
export function findForcedMerge(segments: readonly MergeCandidate[], maxSegments: number): number[] | null {
  const target = Math.max(1, maxSegments);
  if (segments.length === 0) return null;
  if (segments.length <= target) {
    return target === 1 && segments[0].delCount > 0 ? [segments[0].key] : null;
  }
  const sorted = [...segments].sort((a, b) => liveBytes(a) - liveBytes(b));
  return sorted.slice(0, segments.length - target + 1).map((c) => c.key);
}

/** Segments whose deleted docs exceed `pctAllowed` percent, for `only_expunge_deletes`. */
export function findExpungeDeletes(segments: readonly MergeCandidate[], pctAllowed = 10): number[] | null {
  const picked = segments.filter((c) => c.maxDoc > 0 && (100 * c.delCount) / c.maxDoc > pctAllowed);
  return picked.length ? picked.map((c) => c.key) : null;
}
