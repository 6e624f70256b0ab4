/**
 * `_tasks` and `_cat/tasks` list the requests running on the node: a cluster-health wait shows up while it waits
 * (with its id, action, running time) and is gone once it has answered; the listing request lists itself.
 * No sleeps: the test polls `_cat/tasks` until the wait is listed, and ends the wait by making the index green.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';
import { esCall } from '../support/es-call.ts';

let s: TestServer;
before(async () => { s = await startServer({ services: ['documents'], workers: 1 }); });
after(async () => { await s.destroy(); });

const CAT = '/_cat/tasks?actions=cluster:monitor/health&h=action,task_id,parent_task_id,type,running_time&format=json';

test('a running request is a task until it answers', async () => {
  // One replica on one node: the index stays yellow, so waiting for green runs until the index is made green
  // below (the timeout is only a backstop).
  assert.equal((await esCall(s, 'PUT', '/t', { settings: { number_of_shards: 1 } })).status, 200);
  const sentMs = Date.now();
  const waiting = esCall(s, 'GET', '/_cluster/health?wait_for_status=green&timeout=60s');

  let cat = await esCall(s, 'GET', CAT);
  for (const limit = Date.now() + 30_000; cat.status === 200 && cat.body.length === 0; cat = await esCall(s, 'GET', CAT)) {
    if (Date.now() > limit) assert.fail('the health wait was not listed as a task within 30 s');
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(cat.status, 200);
  assert.equal(cat.body.length, 1);
  assert.equal(cat.body[0].action, 'cluster:monitor/health');
  assert.equal(cat.body[0].type, 'transport');
  assert.equal(cat.body[0].parent_task_id, '-');
  assert.match(cat.body[0].running_time, /^\d+(\.\d)?(nanos|micros|ms|s|m|h|d)$/);
  const taskId: string = cat.body[0].task_id;

  const one = await esCall(s, 'GET', `/_tasks/${taskId}?human`);
  assert.equal(one.status, 200);
  assert.equal(one.body.completed, false);
  assert.equal(one.body.task.action, 'cluster:monitor/health');
  assert.equal(one.body.task.description, 'GET /_cluster/health');
  assert.ok(one.body.task.start_time_in_millis >= sentMs && one.body.task.start_time_in_millis <= Date.now(), String(one.body.task.start_time_in_millis));
  assert.deepEqual(Object.keys(one.body.task), ['node', 'id', 'type', 'action', 'description', 'start_time', 'start_time_in_millis', 'running_time', 'running_time_in_nanos', 'cancellable', 'headers']);

  const all = await esCall(s, 'GET', '/_tasks');
  const [nodeId] = Object.keys(all.body.nodes);
  const actions = Object.values(all.body.nodes[nodeId].tasks as Record<string, { action: string }>).map((t) => t.action).sort();
  assert.deepEqual(actions, ['cluster:monitor/health', 'cluster:monitor/tasks/lists']);

  // Still waiting, and its running time keeps growing.
  const again = await esCall(s, 'GET', `/_tasks/${taskId}`);
  assert.equal(again.body.completed, false);
  assert.ok(again.body.task.running_time_in_nanos > one.body.task.running_time_in_nanos,
    `${again.body.task.running_time_in_nanos} > ${one.body.task.running_time_in_nanos}`);

  // No replicas: the index turns green and the wait answers.
  assert.equal((await esCall(s, 'PUT', '/t/_settings', { index: { number_of_replicas: 0 } })).status, 200);
  const answered = await waiting;
  assert.equal(answered.status, 200);
  assert.equal(answered.body.timed_out, false);
  const after = await esCall(s, 'GET', '/_tasks?group_by=none&actions=cluster:monitor/health');
  assert.deepEqual(after.body, { tasks: [] });
  const gone = await esCall(s, 'GET', `/_tasks/${taskId}`);
  assert.equal(gone.status, 404);
  assert.equal(gone.body.error.type, 'resource_not_found_exception');
  assert.equal(gone.body.error.reason, `task [${taskId}] isn't running and hasn't stored its results`);
  assert.equal((await esCall(s, 'GET', '/_tasks/nonsense')).status, 400);
});
