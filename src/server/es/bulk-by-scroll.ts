/**
 * What `_delete_by_query`, `_update_by_query` and `_reindex` report (ES's BulkByScrollResponse): counters of
 * the write outcomes, conflicts (counted, and failures unless `conflicts=proceed`), and the reply with its
 * status (the worst failure's, else 200).
 */
import type { ItemOutcome } from '../../workers/protocol.ts';
import { errorBody } from './errors.ts';

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
  const { error, status } = errorBody(o.err);
  c.failures.push({ ...where, cause: error, status: conflict ? 409 : status });
}

/** The reply body (with `created` and `updated` only where the action reports them) and its status. */
export function byScrollReply(c: ByScrollCounts, startedMs: number, writes: { created?: boolean; updated?: boolean }): { status: number; body: Record<string, unknown> } {
  const body: Record<string, unknown> = { took: Date.now() - startedMs, timed_out: false, total: c.total };
  if (writes.updated) body.updated = c.updated;
  if (writes.created) body.created = c.created;
  Object.assign(body, {
    deleted: c.deleted, batches: c.batches, version_conflicts: c.versionConflicts, noops: c.noops, retries: { bulk: 0, search: 0 },
    throttled_millis: 0, requests_per_second: -1.0, throttled_until_millis: 0, failures: c.failures,
  });
  return { status: c.failures.reduce((s, f) => Math.max(s, f.status), 200), body };
}
