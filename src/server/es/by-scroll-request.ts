/**
 * The checks Elasticsearch makes on a `_reindex`, `_update_by_query` or `_delete_by_query` request before any
 * index is looked at: the REST handlers' parameter parsing (AbstractBaseReindexRestHandler: `size`,
 * `requests_per_second`, `slices`) and AbstractBulkByScrollRequest.validate() on the search part. An index that
 * does not exist is only found after these.
 */
import { illegalArgument } from '../../engine/documents/doc-errors.ts';
import type { HttpRequest } from '../http.ts';

const RPS_PROBLEM = '[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.';

/** Throws ES's errors for a bad `requests_per_second` or `slices` URL parameter. */
export function checkByScrollParams(req: HttpRequest): void {
  const rps = req.query.get('requests_per_second');
  if (rps !== null && rps !== '-1') {
    const n = Number(rps);
    if (rps.trim() === '' || !Number.isFinite(n) || n <= 0) throw illegalArgument(RPS_PROBLEM);
  }
  const slices = req.query.get('slices');
  if (slices !== null && slices !== 'auto' && !(/^-?\d+$/.test(slices) && Number(slices) >= 1)) {
    throw illegalArgument(`[slices] must be a positive integer or the string "auto", but was [${slices}]`);
  }
}

/** AbstractBulkByScrollRequest.setSize: a document limit may not be negative. */
export function checkMaxDocs(v: unknown): void {
  if (v === undefined || v === null) return;
  const n = Number(v);
  if (Number.isInteger(n) && n < 0) throw illegalArgument(`[size] parameter cannot be negative, found [${n}]`);
}

/** Validation problems of the search part (`reindex` adds its `_source: false` rule). */
export function searchPartProblems(search: Record<string, unknown>, reindex: boolean): string[] {
  const out: string[] = [];
  if (search.stored_fields !== undefined) out.push('stored_fields is not supported in this context');
  if (search.from !== undefined && Number(search.from) !== -1) out.push('from is not supported in this context');
  if (reindex && search._source === false) out.push('_source:false is not supported in this context');
  return out;
}
