/** The PromQL query threads start with the first query, or with `warm` (the metrics service, before the node is ready). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { QueryPool } from './pool.ts';

const threads = (): number => readdirSync('/proc/self/task').length;

test('no query thread runs until the first query; the first query starts one and is answered by it', async () => {
  const before = threads();
  const pool = new QueryPool(2);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(pool.started, false);
  if (process.platform === 'linux') assert.equal(threads(), before, 'a thread was started by the constructor');
  // An op query threads refuse: the refusal comes from the thread's own entry (workers/query.ts).
  await assert.rejects(pool.call('core.stats', {} as never, new AbortController().signal), /query threads do not run core\.stats/);
  assert.equal(pool.started, true);
  if (process.platform === 'linux') assert.ok(threads() > before, 'no thread was started for the query');
  await pool.close();
  await assert.rejects(pool.call('core.stats', {} as never, new AbortController().signal), /closed/);
});

test('warm starts the first query thread and resolves once it has run a task, before any query', async () => {
  const pool = new QueryPool(2);
  assert.equal(pool.threadsUp, 0);
  await pool.warm();
  assert.equal(pool.started, true);
  assert.equal(pool.threadsUp, 1, 'one thread up and waiting for the first query');
  await pool.warm();
  assert.equal(pool.threadsUp, 1, 'warming again starts no other thread');
  await pool.close();
});

test('query threads take the young generation bound they are given (-E workers.young_generation_size)', async () => {
  const bounded = new QueryPool(1, 12 * 1024 ** 2);
  await bounded.warm();
  assert.deepEqual(bounded.youngGenerationMb, [12]);
  await bounded.close();
  const own = new QueryPool(1);
  await own.warm();
  assert.equal(own.youngGenerationMb.length, 1);
  assert.ok(own.youngGenerationMb[0] > 12, `V8's own bound (48 MB on 64-bit), not the given one: ${own.youngGenerationMb[0]}`);
  await own.close();
});
