/**
 * The worker contract is checked by the compiler: `npm test` runs `tsc --noEmit` over this file, and each
 * `@ts-expect-error` below fails the type check if the line it marks ever compiles (a wrong operation name,
 * argument or result that the types let through). The run-time half checks the table itself: every declared
 * operation has a handler, and the adapters register nothing else.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadDocumentTasks, TASKS } from '../../src/workers/tasks.ts';
import type { OpName, OpResult, TaskSubset, TaskTable, WorkerTransport, WorkflowResult } from '../../src/workers/protocol.ts';
import type { WorkflowClient } from '../../src/server/workflow/client.ts';

// Compile-time cases: never run, only type-checked.
async function compileChecks(pool: WorkerTransport): Promise<void> {
  // @ts-expect-error: no operation has this name
  await pool.call(0, 'docs.wirte', {});
  // @ts-expect-error: `tsdb.append` needs typed sample arrays, not an empty object
  await pool.call(0, 'tsdb.append', {});
  // @ts-expect-error: the argument of `search.analyze` needs `text`
  await pool.call(0, 'search.analyze', { analyzer: 'standard' });
  // @ts-expect-error: `tsdb.labelNames` answers string[], not numbers
  const names: number[] = await pool.call(0, 'tsdb.labelNames', { selectors: [], mint: 0, maxt: 1 });
  // @ts-expect-error: a document write may answer Stale; using it as outcomes without the check is an error
  const outcomes: { length: number }[] = (await pool.call(0, 'docs.write', { uuid: 'u', shard: 0, mv: 1, items: [] }))[0];
  const ok: OpResult<'tsdb.labelValues'> = await pool.call(0, 'tsdb.labelValues', { selectors: [], mint: 0, maxt: 1, name: 'job' });
  void names; void outcomes; void ok;
}

// @ts-expect-error: a handler must return its operation's result type
const badResult: TaskSubset = { 'core.stats': () => ({ heapUsedBytes: 'lots' }) };
// @ts-expect-error: an area may not register an operation the contract does not declare
const badName: TaskSubset = { 'docs.undelete': () => null };
// @ts-expect-error: the whole table must have every operation
const incomplete: TaskTable = { 'core.ping': () => 'pong' };
void compileChecks; void badResult; void badName; void incomplete;

// The workflow engine threads' contract (`WorkflowOps`): the server's client is typed from the engine's table.
async function workflowChecks(client: WorkflowClient): Promise<void> {
  // @ts-expect-error: no workflow operation has this name
  await client.call('workflow.sav', { body: {} });
  // @ts-expect-error: `workflow.runs` needs the workflow id
  await client.call('workflow.runs', { contactId: 'c1' });
  // @ts-expect-error: `workflow.hasRuns` answers a boolean
  const n: number = await client.call('workflow.hasRuns', { id: 1 });
  const stats: WorkflowResult<'workflow.statistics'> = await client.call('workflow.statistics', { id: 1 });
  void n; void stats.elements;
}
void workflowChecks;

test('the task table has exactly the operations the contract declares (with its documents areas loaded)', async () => {
  await loadDocumentTasks();
  const declared: Record<OpName, true> = {
    'core.ping': true, 'core.stats': true, 'core.crash': true,
    'docs.write': true, 'docs.get': true, 'docs.termvectors': true, 'docs.refresh': true, 'docs.flush': true, 'docs.stats': true, 'docs.state': true, 'docs.segments': true, 'docs.forceMerge': true, 'docs.drop': true, 'docs.closeAll': true, 'docs.closeIndex': true, 'docs.clearCache': true,
    'search.query': true, 'search.dfs': true, 'search.fetch': true, 'search.scroll': true, 'search.clearScroll': true, 'search.analyze': true,
    'tsdb.open': true, 'tsdb.append': true, 'tsdb.select': true, 'tsdb.selectPacked': true, 'tsdb.labelNames': true, 'tsdb.labelValues': true,
    'tsdb.series': true, 'tsdb.deleteSeries': true, 'tsdb.cleanTombstones': true, 'tsdb.snapshot': true, 'tsdb.mergeSnapshot': true, 'tsdb.status': true, 'tsdb.figures': true,
    'tsdb.walReplay': true, 'tsdb.tick': true, 'tsdb.maintainShared': true, 'tsdb.reloadBlocks': true, 'tsdb.close': true,
    'promql.eval': true, 'rules.eval': true,
  };
  assert.deepEqual(Object.keys(TASKS).sort(), Object.keys(declared).sort());
  for (const [op, handler] of Object.entries(TASKS)) assert.equal(typeof handler, 'function', op);
});
