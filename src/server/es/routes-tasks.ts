/**
 * The task management API over the node's running tasks (tasks.ts): `GET /_tasks` (grouped by node, by parent or
 * not at all; `actions` filter; `detailed` descriptions), `GET /_tasks/{node}:{id}` and `_cat/tasks`. A finished
 * task is gone: its results are not stored (ES keeps them only for tasks started with wait_for_completion=false,
 * which no API here does).
 */
import { docError } from '../../engine/documents/doc-errors.ts';
import { illegalArgument } from '../../engine/documents/doc-errors.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Router } from '../router.ts';
import { ES_VERSION, nodeIdentity } from './banner.ts';
import { CAT_PARAMS, renderCat, type CatColumn, type CatRow } from './cat-table.ts';
import type { EsCluster } from './cluster.ts';
import { route } from './handler.ts';
import { humanIfAsked, timeValue } from './human.ts';
import { json } from './json.ts';
import { boolParam } from './params.ts';
import { detachedOutcome, type TaskOutcome } from './detached-task.ts';
import { parseTimeMs } from '../../engine/search/index.ts';
import { esTasks, type RunningTask } from './tasks.ts';

const col = (name: string, desc: string, o: Partial<CatColumn> = {}): CatColumn => ({ name, desc, ...o });
const R = { right: true };

const CAT_TASKS: CatColumn[] = [col('id', 'id of the task with the node', { hidden: true }), col('action', 'task action', { aliases: ['ac'] }),
  col('task_id', 'unique task id', { aliases: ['ti'] }), col('parent_task_id', 'parent task id', { aliases: ['pti'] }), col('type', 'task type', { aliases: ['ty'] }),
  col('start_time', 'start time in ms', { aliases: ['start'] }), col('timestamp', 'start time in HH:MM:SS', { aliases: ['ts', 'hms', 'hhmmss'] }),
  col('running_time_ns', 'running time ns', { hidden: true, ...R }), col('running_time', 'running time', { aliases: ['time'], ...R }),
  col('node_id', 'unique node id', { aliases: ['ni'], hidden: true }), col('ip', 'ip address', { aliases: ['i'] }), col('port', 'bound transport port', { aliases: ['po'], hidden: true }),
  col('node', 'node name', { aliases: ['n'] }), col('version', 'es version', { aliases: ['v'], hidden: true })];

const LIST_PARAMS = ['actions', 'detailed', 'group_by', 'nodes', 'parent_task_id', 'wait_for_completion', 'timeout', 'parent_node'];

export function registerTaskRoutes(router: Router, cluster: EsCluster): void {
  router.add('GET', '/_tasks', route(LIST_PARAMS, (req) => listTasks(cluster, req)));
  router.add('GET', '/_tasks/:task_id', route(['wait_for_completion', 'timeout'], (req, p) => getTask(cluster, req, p.task_id!)));
  router.add('GET', '/_cat/tasks', route([...CAT_PARAMS, 'actions', 'detailed', 'parent_task_id', 'nodes', 'parent_node'], (req) => catTasks(cluster, req)));
}

function taskJson(nodeId: string, t: RunningTask, detailed: boolean): Record<string, unknown> {
  const o: Record<string, unknown> = { node: nodeId, id: t.id, type: 'transport', action: t.action };
  if (detailed) o.description = t.description;
  o.start_time_in_millis = t.startMs;
  o.running_time_in_nanos = esTasks.runningNanos(t);
  o.cancellable = t.cancellable;
  o.headers = {};
  return o;
}

/** Only top-level tasks run here, so a parent filter other than "none" selects nothing. */
function selected(req: HttpRequest, nodeId: string, nodeName: string): RunningTask[] {
  const nodes = req.query.get('nodes');
  if (nodes && !nodes.split(',').some((n) => ['_all', '_local', '_master', '*', nodeId, nodeName].includes(n))) return [];
  const parent = req.query.get('parent_task_id');
  if (parent && parent !== '-1' && parent !== 'unset') return [];
  return esTasks.list(req.query.get('actions'));
}

function listTasks(cluster: EsCluster, req: HttpRequest): HttpResponse {
  const id = nodeIdentity(cluster.ctx.dataDir);
  const detailed = boolParam(req, 'detailed');
  const tasks = selected(req, id.uuid, id.name);
  const groupBy = req.query.get('group_by') ?? 'nodes';
  const entries = (): Record<string, unknown> => Object.fromEntries(tasks.map((t) => [`${id.uuid}:${t.id}`, taskJson(id.uuid, t, detailed)]));
  let body: unknown;
  if (groupBy === 'none') body = { tasks: tasks.map((t) => taskJson(id.uuid, t, detailed)) };
  else if (groupBy === 'parents') body = { tasks: entries() };
  else if (groupBy === 'nodes') {
    const nodes = tasks.length === 0 ? {} : { [id.uuid]: { name: id.name, transport_address: '127.0.0.1:9300', host: '127.0.0.1', ip: '127.0.0.1:9300', roles: ['master', 'data', 'ingest'], tasks: entries() } };
    body = { nodes };
  } else throw illegalArgument(`[group_by] must be one of [nodes], [parents] or [none] but was [${groupBy}]`);
  return json(req, 200, humanIfAsked(req, body));
}

async function getTask(cluster: EsCluster, req: HttpRequest, taskId: string): Promise<HttpResponse> {
  const id = nodeIdentity(cluster.ctx.dataDir);
  const m = /^([^:]+):(-?\d+)$/.exec(taskId);
  if (!m) throw illegalArgument(`malformed task id ${taskId}`);
  const n = Number(m[2]);
  const outcome = m[1] === id.uuid ? detachedOutcome(n) : undefined;
  if (outcome) {
    if (outcome.tookNanos < 0 && boolParam(req, 'wait_for_completion')) await waitFor(outcome, req, taskId);
    return json(req, 200, humanIfAsked(req, outcomeJson(id.uuid, outcome)));
  }
  const t = m[1] === id.uuid ? esTasks.get(n) : undefined;
  if (!t) throw docError('NOT_FOUND', [`task [${taskId}] isn't running and hasn't stored its results`]);
  return json(req, 200, humanIfAsked(req, { completed: false, task: taskJson(id.uuid, t, true) }));
}

// ES's default wait for `wait_for_completion=true` on a task.
const DEFAULT_TASK_WAIT_MS = 30_000;

async function waitFor(outcome: TaskOutcome, req: HttpRequest, taskId: string): Promise<void> {
  const limitMs = parseTimeMs(req.query.get('timeout') ?? '') ?? DEFAULT_TASK_WAIT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(true), limitMs); });
  const late = await Promise.race([outcome.done.then(() => false), timedOut]);
  clearTimeout(timer);
  if (late) throw docError('DOC_TASK_WAIT_TIMEOUT', [taskId]);
}

/** A detached task as `GET /_tasks/{id}` shows it: running, or completed with its response or error. */
function outcomeJson(nodeId: string, o: TaskOutcome): Record<string, unknown> {
  const task = taskJson(nodeId, o.task, true);
  const done = o.tookNanos >= 0;
  if (done) task.running_time_in_nanos = o.tookNanos;
  if (o.response) task.status = Object.fromEntries(Object.entries(o.response).filter(([k]) => STATUS_FIELDS.has(k)));
  const out: Record<string, unknown> = { completed: done, task };
  if (done && o.response) out.response = o.response;
  if (done && o.error) out.error = o.error;
  return out;
}

/** BulkByScrollTask.Status: the counters a by-scroll task reports as its status. */
const STATUS_FIELDS = new Set(['total', 'updated', 'created', 'deleted', 'batches', 'version_conflicts', 'noops', 'retries',
  'throttled_millis', 'requests_per_second', 'throttled_until_millis', 'slices']);

function catTasks(cluster: EsCluster, req: HttpRequest): HttpResponse {
  const id = nodeIdentity(cluster.ctx.dataDir);
  const detailed = boolParam(req, 'detailed');
  const rows: CatRow[] = selected(req, id.uuid, id.name).map((t) => {
    const ns = esTasks.runningNanos(t);
    const row: CatRow = { id: t.id, action: t.action, task_id: `${id.uuid}:${t.id}`, parent_task_id: '-', type: 'transport', start_time: t.startMs,
      timestamp: new Date(t.startMs).toISOString().slice(11, 19), running_time_ns: ns, running_time: timeValue(ns, ns), node_id: id.uuid, ip: '127.0.0.1',
      port: 9300, node: id.name, version: ES_VERSION.number };
    if (detailed) row.description = t.description;
    return row;
  });
  return renderCat(req, detailed ? [...CAT_TASKS, col('description', 'task action', { aliases: ['desc'] })] : CAT_TASKS, rows);
}
