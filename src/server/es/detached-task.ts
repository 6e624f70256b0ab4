/**
 * `wait_for_completion=false` on `_reindex`, `_update_by_query` and `_delete_by_query`: the request is validated
 * as usual, then its work runs as a task of its own that outlives the request, and the reply is
 * `{"task": "<node id>:<n>"}` at once. The outcome (the response the request would have had, or its error) is
 * kept for `GET /_tasks/{task_id}`, which reports it as completed and can wait for it. ES writes outcomes to the
 * `.tasks` index; here they are kept in memory, the newest 1000, until the node stops.
 */
import type { HttpRequest, HttpResponse } from '../http.ts';
import { nodeIdentity } from './banner.ts';
import type { EsCluster } from './cluster.ts';
import { errorBody } from './errors.ts';
import { json } from './json.ts';
import { esTasks, type RunningTask } from './tasks.ts';

export interface TaskOutcome {
  task: RunningTask;
  /** Resolves when the work has finished, whatever its outcome. */
  done: Promise<void>;
  /** Running time in nanoseconds, fixed when the work finished; -1 while it runs. */
  tookNanos: number;
  response: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
}

const KEPT_OUTCOMES = 1000;
const outcomes = new Map<number, TaskOutcome>();

/** Whether the request asks not to wait (`wait_for_completion=false`). */
export function detachRequested(req: HttpRequest): boolean {
  return req.query.get('wait_for_completion') === 'false';
}

/** Starts `work` as a task of its own and answers with the task's id. */
export function startDetached(cluster: EsCluster, req: HttpRequest, work: () => Promise<{ status: number; body: Record<string, unknown> }>): HttpResponse {
  const task = esTasks.startDetached(req, esTasks.actionFor(req) ?? 'indices:data/write/reindex', Date.now());
  const outcome: TaskOutcome = { task, done: Promise.resolve(), tookNanos: -1, response: null, error: null };
  outcome.done = work().then(
    (reply) => { outcome.response = reply.body; },
    (err: unknown) => { outcome.error = errorBody(err).error as Record<string, unknown>; },
  ).finally(() => {
    outcome.tookNanos = esTasks.runningNanos(task);
    esTasks.finish(task);
  });
  outcomes.set(task.id, outcome);
  if (outcomes.size > KEPT_OUTCOMES) outcomes.delete(outcomes.keys().next().value!);
  return json(req, 200, { task: `${nodeIdentity(cluster.ctx.dataDir).uuid}:${task.id}` });
}

/** The kept outcome of a detached task, running or finished. */
export function detachedOutcome(id: number): TaskOutcome | undefined {
  return outcomes.get(id);
}
