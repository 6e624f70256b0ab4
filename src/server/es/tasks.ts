/**
 * The node's running tasks, as ES's TaskManager lists them (`_tasks`, `_cat/tasks`): every 9200 request whose
 * route names a transport action (searches, bulks, writes, by-query, reindex, health waits, …) is registered for
 * as long as it runs. Each task has the node-wide id ES would give it (`<node id>:<n>`), its start time and its
 * running time; searches, by-query and reindex are the cancellable kinds. Shard-level child tasks are not modelled.
 */
import type { HttpRequest } from '../http.ts';
import { simpleMatch } from '../../engine/regex/index.ts';

export interface RunningTask {
  id: number;
  action: string;
  /** What `detailed` shows: the request line. */
  description: string;
  startMs: number;
  /** performance.now() at the start, for the running time in nanoseconds. */
  startMark: number;
  cancellable: boolean;
}

/** Transport actions by route, in the order they are tried; the first match names the request's task. */
const ACTIONS: [RegExp, string | null, string, boolean][] = [
  [/\/_search\/scroll(\/|$)/, null, 'indices:data/read/scroll', true],
  [/\/_msearch$/, null, 'indices:data/read/msearch', false],
  [/\/_(search|count)$/, null, 'indices:data/read/search', true],
  [/\/_bulk$/, null, 'indices:data/write/bulk', false],
  [/\/_update_by_query$/, null, 'indices:data/write/update/byquery', true],
  [/\/_delete_by_query$/, null, 'indices:data/write/delete/byquery', true],
  [/^\/_reindex$/, null, 'indices:data/write/reindex', true],
  [/^\/_cluster\/health(\/|$)/, null, 'cluster:monitor/health', false],
  [/^\/(_tasks|_cat\/tasks)(\/|$)/, 'GET', 'cluster:monitor/tasks/lists', false],
  [/\/_refresh$/, null, 'indices:admin/refresh', false],
  [/\/_flush$/, null, 'indices:admin/flush', false],
  [/\/_flush\/synced$/, null, 'indices:admin/synced_flush', false],
  [/\/_forcemerge$/, null, 'indices:admin/forcemerge', false],
  [/^\/_nodes\/(.*\/)?stats(\/|$)/, 'GET', 'cluster:monitor/nodes/stats', false],
  [/(^|\/)_stats(\/|$)/, 'GET', 'indices:monitor/stats', false],
  [/\/_mget$/, null, 'indices:data/read/mget', false],
  [/^\/[^_/][^/]*\/[^_/][^/]*\/[^/]+\/_update$/, 'POST', 'indices:data/write/update', false],
  [/^\/[^_/][^/]*\/[^/]+\/[^_/][^/]*$/, 'GET', 'indices:data/read/get', false],
  [/^\/[^_/][^/]*\/[^/]+\/[^_/][^/]*$/, 'PUT', 'indices:data/write/index', false],
  [/^\/[^_/][^/]*\/[^/]+(\/[^_/][^/]*)?$/, 'POST', 'indices:data/write/index', false],
  [/^\/[^_/][^/]*\/[^/]+\/[^_/][^/]*$/, 'DELETE', 'indices:data/write/delete', false],
];

export class TaskRegistry {
  private readonly running = new Map<number, RunningTask>();
  private next = 0;

  /** Registers the request's task, or returns null for routes that name no transport action. */
  startFor(req: HttpRequest, nowMs: number): RunningTask | null {
    for (const [re, method, action, cancellable] of ACTIONS) {
      if (method !== null && method !== req.method) continue;
      if (!re.test(req.path)) continue;
      const t: RunningTask = { id: ++this.next, action, description: `${req.method} ${req.path}`, startMs: nowMs, startMark: performance.now(), cancellable };
      this.running.set(t.id, t);
      return t;
    }
    return null;
  }

  /**
   * Registers a task that is not a request's own: the work a `wait_for_completion=false` request leaves running
   * (detached-task.ts). The caller finishes it.
   */
  startDetached(req: HttpRequest, action: string, nowMs: number): RunningTask {
    const t: RunningTask = { id: ++this.next, action, description: `${req.method} ${req.path}`, startMs: nowMs, startMark: performance.now(), cancellable: true };
    this.running.set(t.id, t);
    return t;
  }

  /** The action name the request's route is registered under, or null. */
  actionFor(req: HttpRequest): string | null {
    for (const [re, method, action] of ACTIONS) if ((method === null || method === req.method) && re.test(req.path)) return action;
    return null;
  }

  finish(t: RunningTask | null): void {
    if (t !== null) this.running.delete(t.id);
  }

  get(id: number): RunningTask | undefined { return this.running.get(id); }

  /** Running tasks in start order, optionally only the actions matching `actions` (comma-separated, `*` wildcards). */
  list(actions: string | null): RunningTask[] {
    const all = [...this.running.values()];
    if (!actions) return all;
    const patterns = actions.split(',');
    return all.filter((t) => patterns.some((p) => simpleMatch(p, t.action)));
  }

  /** Nanoseconds since the task started. */
  runningNanos(t: RunningTask): number {
    return Math.round((performance.now() - t.startMark) * 1e6);
  }
}

/** The node's one task registry (the 9200 routes register into it; `_tasks` and `_cat/tasks` read it). */
export const esTasks = new TaskRegistry();
