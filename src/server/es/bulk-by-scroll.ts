/**
 * What `_delete_by_query`, `_update_by_query` and `_reindex` report (ES's BulkByScrollResponse): counters of
 * the write outcomes, conflicts (counted, and failures unless `conflicts=proceed`), and the reply with its
 * status (the worst failure's, else 200).
 */
import type { ItemOutcome } from '../../workers/protocol.ts';
import { itemError } from './errors.ts';
import { RawJson } from './json.ts';
import { illegalArgument } from '../../engine/documents/doc-errors.ts';

export interface ByScrollCounts {
  total: number; created: number; updated: number; deleted: number; batches: number; versionConflicts: number; noops: number;
  failures: { index: string; type: string; id: string; cause: Record<string, unknown>; status: number }[];
}

export const newCounts = (): ByScrollCounts => ({ total: 0, created: 0, updated: 0, deleted: 0, batches: 0, versionConflicts: 0, noops: 0, failures: [] });

/** Counts one write's outcome; an error whose code is in `conflictCodes` is a version conflict. */
export function countOutcome(o: ItemOutcome, where: { index: string; type: string; id: string }, proceed: boolean, c: ByScrollCounts,
  conflictCodes: readonly string[] = ['DOC_VERSION_CONFLICT']): void {
  if ('ok' in o) {
    const r = o.ok.result;
    if (r === 'created') c.created++;
    else if (r === 'updated') c.updated++;
    else if (r === 'deleted') c.deleted++;
    else if (r === 'noop') c.noops++;
    return;
  }
  if (!('err' in o)) return;
  const conflict = conflictCodes.includes(o.err.code);
  if (conflict) c.versionConflicts++;
  if (conflict && proceed) return;
  // A failure's `cause` is the exception itself (BulkItemResponse.Failure writes no root_cause).
  const { error, status } = itemError(o.err);
  c.failures.push({ ...where, cause: error, status: conflict ? 409 : status });
}

/**
 * The reply body (with `created` and `updated` only where the action reports them) and its status. A sliced
 * request (`slices` > 1) passes each slice's counts: the body sums them and lists them under `slices`.
 */
export function byScrollReply(c: ByScrollCounts, startedMs: number, writes: { created?: boolean; updated?: boolean },
  slices: ByScrollCounts[] | null = null): { status: number; body: Record<string, unknown> } {
  if (slices) c = sumCounts(slices);
  const body: Record<string, unknown> = { took: Date.now() - startedMs, timed_out: false, ...status(c, writes, null) };
  if (slices) body.slices = slices.map((s, i) => status(s, writes, i));
  body.failures = c.failures;
  return { status: c.failures.reduce((s, f) => Math.max(s, f.status), 200), body };
}

/** ES's BulkByScrollTask.Status fields of one run or one slice (`slice_id` first for a slice). */
function status(c: ByScrollCounts, writes: { created?: boolean; updated?: boolean }, sliceId: number | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (sliceId !== null) out.slice_id = sliceId;
  out.total = c.total;
  if (writes.updated) out.updated = c.updated;
  if (writes.created) out.created = c.created;
  Object.assign(out, {
    deleted: c.deleted, batches: c.batches, version_conflicts: c.versionConflicts, noops: c.noops, retries: { bulk: 0, search: 0 },
    // A Java float: ES prints -1.0 (JSON.stringify would print -1).
    throttled_millis: 0, requests_per_second: new RawJson('-1.0'), throttled_until_millis: 0,
  });
  return out;
}

function sumCounts(parts: ByScrollCounts[]): ByScrollCounts {
  const c = newCounts();
  for (const p of parts) {
    c.total += p.total; c.created += p.created; c.updated += p.updated; c.deleted += p.deleted; c.batches += p.batches;
    c.versionConflicts += p.versionConflicts; c.noops += p.noops; c.failures.push(...p.failures);
  }
  return c;
}

/**
 * The `slices` URL parameter: a count, or `auto` (the smallest shard count of the source indices, as ES 6.8).
 * 1 means an unsliced run.
 */
export function slicesParam(v: string | null, shardCounts: number[]): number {
  if (v === null) return 1;
  if (v === 'auto') return Math.max(1, Math.min(...shardCounts, Infinity) === Infinity ? 1 : Math.min(...shardCounts));
  const n = Number(v);
  if (!Number.isInteger(n)) throw illegalArgument(`[slices] must be a positive integer or the string "auto", but was [${v}]`);
  if (n < 1) throw illegalArgument(`[slices] must be a positive integer or the string "auto", but was [${v}]`);
  return n;
}
