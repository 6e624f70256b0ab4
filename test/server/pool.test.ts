import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { ShardPool } from '../../src/server/pool.ts';
import { EngineError, OverloadedError } from '../../src/engine/errors.ts';

const crashes: number[] = [];
const pool = new ShardPool({ workers: 2, dataDir: '/nonexistent', options: { allowCrashTask: true }, maxPendingPerWorker: 5000, onWorkerError: (id) => crashes.push(id) });
after(() => pool.close());

test('calls reach the worker they name and come back in order', async () => {
  const out = await Promise.all(Array.from({ length: 1000 }, (_, i) => pool.call(i % 2, 'core.ping', { echo: i })));
  assert.deepEqual(out, Array.from({ length: 1000 }, (_, i) => i));
});

test('large results cross the thread boundary intact', async () => {
  const big = 'x'.repeat(1 << 20);
  assert.equal(await pool.call(0, 'core.ping', { echo: big }), big);
});

test('a document batch larger than its ring crosses in frames, both ways, intact', async () => {
  // 3 MiB each way through 1 MiB rings: the frames stream while the other side drains them.
  const big = Array.from({ length: 3 << 10 }, (_, i) => String(i % 10).repeat(1024)).join('');
  assert.equal(big.length, 3 << 20);
  assert.equal(await pool.call(0, 'core.ping', { echo: big }), big);
});

test('batches of mixed sizes in flight together each get their own reply', async () => {
  const sizes = Array.from({ length: 60 }, (_, i) => (i % 7 === 0 ? 400_000 + i : 10 + i));
  // One call per event-loop turn, so each is its own batch (and its own ring message) in flight at once.
  const pending: Promise<unknown>[] = [];
  for (const n of sizes) {
    pending.push(pool.call(n % 2, 'core.ping', { echo: 'y'.repeat(n) }));
    await new Promise((r) => setImmediate(r));
  }
  const out = await Promise.all(pending);
  assert.deepEqual(out.map((x) => (x as string).length), sizes);
});

test('an unknown op rejects with an engine error rebuilt on this thread', async () => {
  // @ts-expect-error: the op table has no such operation; the worker must still refuse it at run time.
  await assert.rejects(pool.call(1, 'no.such.op', {}), (e: unknown) => e instanceof EngineError && e.code === 'INTERNAL' && /unknown worker op no\.such\.op/.test(e.message));
});

test('more calls in flight than the limit are refused with OverloadedError, the rest succeed', async () => {
  const calls = Array.from({ length: 6000 }, (_, i) => pool.call(0, 'core.ping', { echo: i }).then(() => 'ok', (e) => e));
  const results = await Promise.all(calls);
  const refused = results.filter((r) => r instanceof OverloadedError);
  assert.equal(refused.length, 1000);
  assert.equal(results.filter((r) => r === 'ok').length, 5000);
});

test('a crashed worker fails its in-flight calls with WORKER_CRASHED, is reported, and is replaced', async () => {
  const before = crashes.length;
  const inflight = pool.call(1, 'core.ping', { echo: 'same batch' });
  await assert.rejects(pool.call(1, 'core.crash', {}), (e: unknown) => e instanceof EngineError && e.code === 'WORKER_CRASHED');
  await assert.rejects(inflight, (e: unknown) => e instanceof EngineError && e.code === 'WORKER_CRASHED');
  assert.ok(crashes.length > before && crashes.includes(1));
  assert.equal(await pool.call(1, 'core.ping', { echo: 'after' }), 'after');
});

test('search calls, sent at the next microtask, and calls sent at the turn\'s end are each answered once when interleaved', async () => {
  // A ping queues a turn's flush; the search call then flushes the shared queue early (ping included); the
  // calls made after that microtask but within the turn go with the turn's flush, which must not resend any.
  const first = pool.call(0, 'core.ping', { echo: 'a' });
  const search = pool.call(0, 'search.analyze', { text: 'Quick Fox', analyzer: 'standard' });
  await Promise.resolve();
  await Promise.resolve();
  const later = [pool.call(0, 'core.ping', { echo: 'b' }), pool.call(0, 'search.analyze', { text: 'Lazy Dog', analyzer: 'standard' }), pool.call(0, 'core.ping', { echo: 'c' })];
  assert.equal(await first, 'a');
  assert.deepEqual((await search).tokens.map((t) => t.token), ['quick', 'fox']);
  const [b, dog, c] = await Promise.all(later);
  assert.equal(b, 'b');
  assert.deepEqual((dog as { tokens: { token: string }[] }).tokens.map((t) => t.token), ['lazy', 'dog']);
  assert.equal(c, 'c');
  assert.equal(pool.depth(0), 0);
});
