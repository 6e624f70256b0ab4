/**
 * Paged listings over the on-disk indexes (spec §11: runs, action log, outbox). A listing walks ONE index —
 * the most selective one its filters allow — in key order, filters the records it loads, and stops after
 * `size` matches. Pages are addressed by a cursor (`after`: the last id of the previous page) or by a page
 * number (`page`, which skips `(page-1)·size` matches and so costs what the skipped pages cost).
 */
import type { IndexSpace } from './space.ts';
import { WorkflowStore } from './store.ts';

export interface PageArgs { page?: number; size?: number; after?: string }

/** Default and largest page sizes. */
export const DEFAULT_PAGE_SIZE = 1000;
export const MAX_PAGE_SIZE = 10_000;
/** Index keys read per step while filtering. */
const STEP = 512;

/** The same paging over a list of ids held in a record (a contact's runs of a workflow). */
export function pageIds<T>(ids: readonly string[], a: PageArgs, load: (id: string) => T | undefined, accept: (v: T) => boolean): T[] {
  const size = Math.min(a.size ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  let skip = a.after === undefined ? ((a.page ?? 1) - 1) * size : 0;
  const out: T[] = [];
  for (let i = a.after === undefined ? 0 : ids.indexOf(a.after) + 1; i < ids.length && out.length < size; i++) {
    const v = load(ids[i]);
    if (v === undefined || !accept(v)) continue;
    if (skip > 0) { skip--; continue; }
    out.push(v);
  }
  return out;
}

/**
 * Matches of `accept` over the records named by `ix` keys under `prefix`, in key order, from the cursor.
 * `load` maps an id to its record (undefined: skipped, e.g. removed by retention meanwhile).
 */
export function page<T>(ix: IndexSpace, prefix: string, a: PageArgs, load: (id: string) => T | undefined, accept: (v: T) => boolean): T[] {
  const size = Math.min(a.size ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  let skip = a.after === undefined ? ((a.page ?? 1) - 1) * size : 0;
  const out: T[] = [];
  let start = a.after === undefined ? prefix : prefix + a.after + '\u0000';
  const end = prefix + '\uffff';
  for (;;) {
    const keys = ix.scan(start, end, STEP);
    for (let i = 0; i < keys.length; i++) {
      const v = load(WorkflowStore.lastPart(keys[i]));
      if (v === undefined || !accept(v)) continue;
      if (skip > 0) { skip--; continue; }
      out.push(v);
      if (out.length >= size) return out;
    }
    if (keys.length < STEP) return out;
    start = keys[keys.length - 1] + '\u0000';
  }
}
