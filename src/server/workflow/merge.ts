/**
 * Combining the replies of several workflow partitions into one wire answer: statistics are per partition
 * (each counts its own contacts) and are summed; listings are merged in index order and paged; a journey
 * is collected from wherever the contact's runs are.
 */
import type { WorkflowResult } from '../../workers/protocol.ts';

type Stats = WorkflowResult<'workflow.statistics'>;
type Counters = Record<string, number | undefined>;

function addInto(dst: Counters, src: Counters): void {
  for (const k of Object.keys(src)) if (typeof src[k] === 'number') dst[k] = (dst[k] ?? 0) + src[k]!;
}

/** The sum of per-partition statistics of one workflow (same element list in each). */
export function sumStats(parts: Stats[]): Stats {
  const out: Stats = structuredClone(parts[0]);
  for (let i = 1; i < parts.length; i++) {
    const p = parts[i];
    addInto(out as unknown as Counters, { entered: p.entered, active: p.active, completed: p.completed, failed: p.failed, cancelled: p.cancelled });
    addInto(out.entryRejected as unknown as Counters, p.entryRejected as unknown as Counters);
    for (const [id, el] of Object.entries(p.elements)) {
      const have = (out.elements[id] ??= { arrived: 0 });
      addInto(have as unknown as Counters, el as unknown as Counters);
    }
  }
  return out;
}

/** A rendered workflow from partition 0 with the statistics of all partitions. */
export function withSummedStats<T extends Record<string, unknown>>(parts: T[]): T {
  if (parts.length === 1) return parts[0];
  return { ...parts[0], statistics: sumStats(parts.map((p) => p.statistics as Stats)) };
}

/** Lists of workflows (same items, same order in every partition) with summed statistics. */
export function mergeWorkflowLists(parts: WorkflowResult<'workflow.list'>[]): WorkflowResult<'workflow.list'> {
  if (parts.length === 1) return parts[0];
  return { ...parts[0], items: parts[0].items.map((w, i) => withSummedStats(parts.map((p) => p.items[i]))) };
}

/**
 * Merges per-partition pages, each already in the index's key order (`key`), skips `skip` items and keeps
 * `size`. Every partition must have returned at least `skip + size` items when it had that many.
 */
export function mergePages<T>(parts: T[][], key: (v: T) => string, skip: number, size: number): T[] {
  if (parts.length === 1) return parts[0].slice(skip, skip + size);
  const idx = new Array<number>(parts.length).fill(0);
  const out: T[] = [];
  for (let n = 0; n < skip + size; n++) {
    let best = -1;
    let bestKey = '';
    for (let p = 0; p < parts.length; p++) {
      if (idx[p] >= parts[p].length) continue;
      const k = key(parts[p][idx[p]]);
      if (best < 0 || k < bestKey) { best = p; bestKey = k; }
    }
    if (best < 0) break;
    const v = parts[best][idx[best]++];
    if (n >= skip) out.push(v);
  }
  return out;
}

type Journey = WorkflowResult<'workflow.journey'>;

/** One contact's journey: its runs are in one partition, but the call does not know which. */
export function mergeJourneys(parts: Journey[]): Journey {
  if (parts.length === 1) return parts[0];
  const runs = parts.flatMap((p) => p.runs as { entryNo: number }[]).sort((a, b) => a.entryNo - b.entryNo);
  return { ...parts[0], runs, pendingTimers: parts.flatMap((p) => p.pendingTimers) };
}

/** Health of the service: partition 0's answer with the per-partition memory and commit figures summed. */
export function mergeHealth(parts: WorkflowResult<'health'>[]): WorkflowResult<'health'> & { partitions: number } {
  const out = { ...parts[0], partitions: parts.length, commits: { ...parts[0].commits, kv: parts[0].commits.kv && { ...parts[0].commits.kv } } };
  for (let i = 1; i < parts.length; i++) {
    for (const k of ['cachedContacts', 'cachedRuns', 'cachedTimers', 'timersInMemory'] as const) out[k] += parts[i][k];
    const c = parts[i].commits;
    for (const k of ['commits', 'committedWrites', 'commitMs'] as const) out.commits[k] += c[k];
    if (out.commits.kv && c.kv) {
      for (const k of ['txns', 'txnMs', 'syncMs', 'pagesWritten'] as const) out.commits.kv[k] += c.kv[k];
      if (out.commits.kv.logSyncs !== undefined && c.kv.logSyncs !== undefined) out.commits.kv.logSyncs += c.kv.logSyncs;
    }
  }
  return out;
}
