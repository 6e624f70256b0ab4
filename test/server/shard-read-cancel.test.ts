/**
 * Issue 16 §1: reads in the shard workers (PromQL selects, ES shard searches) stop when their client hangs up or
 * the node gets SIGTERM, not only at their deadline. The test hook TESSERA_TEST_SHARD_READ_STALL makes every
 * such read stall until it is stopped — a read over a data set too large to finish — and the nodes here have a
 * 10-minute query deadline: a worker freed within the test can only have been freed by the cancellation. A worker
 * still stalled blocks every call routed to it, so calls that answer show the workers are free. The clients'
 * own time-outs (8 s) only bound a failing run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from '../support/server.ts';

async function startNode(): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-readcancel-'));
  const config = path.join(dataDir, 'prometheus.yml');
  writeFileSync(config, 'scrape_configs: []\n');
  const node = await startServer({
    dataDir, services: ['documents', 'metrics'], workers: 2, args: ['--config.file', config, '--query.timeout', '10m', '--query.max-concurrency', '1'],
    env: { TESSERA_TEST_HOOKS: '1', TESSERA_TEST_SHARD_READ_STALL: '1' },
  });
  const put = await fetch(`${node.esUrl}/docs/_doc/1?refresh=true`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"title":"x"}' });
  assert.equal(put.status, 201);
  return node;
}

/** Polls `probe` until it returns true; fails after a minute (a bound for reporting, not an expected time). */
async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  const giveUp = AbortSignal.timeout(60_000);
  while (!giveUp.aborted) {
    if (await probe()) return;
    await new Promise((r) => setImmediate(r));
  }
  assert.fail(`never: ${what}`);
}

const searchesActive = async (node: TestServer): Promise<number> =>
  Number((await (await fetch(`${node.esUrl}/_cat/thread_pool/search?h=active`)).text()).trim());

/**
 * Whether a query holds the node's one query slot: a probe query (no selectors, so no worker call) then waits
 * for the slot and times out in the queue. `/metrics` cannot tell: it reads figures from the stalled workers.
 */
const slotTaken = async (node: TestServer): Promise<boolean> => {
  const r = await fetch(`${node.promUrl}/api/v1/query?query=1%2B1&timeout=50ms`);
  const body = await r.json() as { error?: string };
  return r.status === 503 && /query timed out in query queue/.test(body.error ?? '');
};

test('a PromQL select and an ES shard search whose clients hung up stop in the workers', { timeout: 120_000 }, async () => {
  const node = await startNode();
  try {
    const client = new AbortController();
    const promql = fetch(`${node.promUrl}/api/v1/query?query=up`, { signal: client.signal }).catch((e: Error) => e.name);
    const search = fetch(`${node.esUrl}/docs/_search`, { method: 'POST', signal: client.signal, headers: { 'content-type': 'application/json' }, body: '{}' })
      .catch((e: Error) => e.name);
    await until('the search runs on its shards', async () => await searchesActive(node) > 0);
    await until('the query holds the query slot', () => slotTaken(node));
    client.abort();
    assert.deepEqual(await Promise.all([promql, search]), ['AbortError', 'AbortError']);
    await until('the shard searches ended', async () => await searchesActive(node) === 0);
    // Every worker answers: label names and index stats are read on each of them (the index's 5 shards span both).
    const labels = await fetch(`${node.promUrl}/api/v1/labels`, { signal: AbortSignal.timeout(8000) });
    assert.equal(labels.status, 200);
    const get = await fetch(`${node.esUrl}/docs/_doc/1`, { signal: AbortSignal.timeout(8000) });
    assert.equal(get.status, 200);
    const stats = await fetch(`${node.esUrl}/_stats/docs`, { signal: AbortSignal.timeout(8000) });
    assert.equal(stats.status, 200);
  } finally {
    await node.destroy();
  }
});

test('SIGTERM stops the reads in the workers: the node exits cleanly while a search and a select stall', { timeout: 120_000 }, async () => {
  const node = await startNode();
  try {
    const promql = fetch(`${node.promUrl}/api/v1/query?query=up`, { signal: AbortSignal.timeout(60_000) }).then((r) => r.status, (e: Error) => e.name);
    const search = fetch(`${node.esUrl}/docs/_search`, { method: 'POST', signal: AbortSignal.timeout(60_000), headers: { 'content-type': 'application/json' }, body: '{}' })
      .then((r) => r.status, (e: Error) => e.name);
    await until('the search runs on its shards', async () => await searchesActive(node) > 0);
    await until('the query holds the query slot', () => slotTaken(node));
    assert.equal(await node.stop(), 0, node.stderr());
    const [p, s] = await Promise.all([promql, search]);
    assert.equal(p, 503, 'the query is answered as canceled');
    assert.notEqual(s, 'TimeoutError', 'the search was answered before the node exited');
  } finally {
    await node.destroy();
  }
});
