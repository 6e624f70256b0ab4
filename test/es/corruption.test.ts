/**
 * Damaged segment files through the HTTP API: the shard that holds them fails with an error naming the file and
 * offset — at start-up for files checked at open (or for every file with `index.shard.check_on_startup:
 * checksum`), on the first read of the damaged region otherwise — and from then on cluster health is red,
 * `_cat/shards` shows it unassigned, searches report it as a failed shard, and no request is answered from it.
 * The failure survives a restart (the shard's `corrupted` marker) until the index is deleted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type TestServer } from '../support/server.ts';

async function es(s: TestServer, method: string, path: string, body?: unknown): Promise<{ status: number; json: any; text: string }> {
  const r = await fetch(`${s.esUrl}${path}`, {
    method, headers: { 'content-type': typeof body === 'string' ? 'application/x-ndjson' : 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await r.text();
  let json: any = null;
  try { json = JSON.parse(text); } catch { /* _cat text */ }
  return { status: r.status, json, text };
}

/** An index of one shard with committed segments, then the server stopped; returns the shard's index directory. */
async function prepare(settings: Record<string, unknown> = {}): Promise<{ s: TestServer; dir: string }> {
  const s = await startServer({ services: ['documents'], workers: 1 });
  assert.equal((await es(s, 'PUT', '/logs', { settings: { number_of_shards: 1, number_of_replicas: 0, ...settings } })).status, 200);
  let body = '';
  for (let i = 0; i < 300; i++) body += `{"index":{"_id":"${i}"}}\n${JSON.stringify({ body: `common words w${i % 17} more common text ${i}`, n: i })}\n`;
  assert.equal((await es(s, 'POST', '/logs/_doc/_bulk?refresh=true', body)).json.errors, false);
  assert.equal((await es(s, 'POST', '/logs/_flush')).status, 200);
  await s.stop();
  const uuid = readdirSync(join(s.dataDir, 'es', 'indices'))[0];
  return { s, dir: join(s.dataDir, 'es', 'indices', uuid, '0', 'index') };
}

function flip(dir: string, ending: string): string {
  const name = readdirSync(dir).find((f) => f.endsWith(ending))!;
  const path = join(dir, name);
  const bytes = readFileSync(path);
  bytes[16 + Math.floor((statSync(path).size - 16) / 2)] ^= 0x5a;
  writeFileSync(path, bytes);
  return path;
}

async function expectFailedShard(s: TestServer, file: string): Promise<void> {
  const health = await es(s, 'GET', '/_cluster/health/logs');
  assert.equal(health.json.status, 'red');
  assert.equal(health.json.unassigned_shards, 1);
  const shards = await es(s, 'GET', '/_cat/shards/logs?h=shard,prirep,state');
  assert.equal(shards.text.trim().replace(/\s+/g, ' '), '0 p UNASSIGNED');
  const search = await es(s, 'POST', '/logs/_search', { query: { match: { body: 'common' } } });
  assert.equal(search.status, 503, `a search on the failed shard fails: ${search.text}`);
  assert.match(search.text, /shard failed: corruption in/);
  assert.ok(search.text.includes(file), 'the error names the damaged file');
  const get = await es(s, 'GET', '/logs/_doc/1');
  assert.equal(get.status, 503);
  assert.equal(get.json.error.type, 'no_shard_available_action_exception');
  // Allocation explain (no body: the first unassigned shard) names the failed primary and why no copy is valid.
  const explain = await es(s, 'GET', '/_cluster/allocation/explain');
  assert.equal(explain.status, 200, explain.text);
  assert.deepEqual([explain.json.index, explain.json.shard, explain.json.primary, explain.json.current_state, explain.json.can_allocate],
    ['logs', 0, true, 'unassigned', 'no_valid_shard_copy']);
  assert.ok(explain.json.node_allocation_decisions[0].store.store_exception.reason.includes(file), explain.text);
}

test('a damaged .si fails the shard at start-up; the failure persists across a restart', async () => {
  const { s, dir } = await prepare();
  const file = flip(dir, '.si');
  let s2 = await s.restart();
  try {
    await expectFailedShard(s2, file);
    await s2.stop();
    s2 = await s2.restart();
    await expectFailedShard(s2, file);
    // Deleting the index clears the failure.
    assert.equal((await es(s2, 'DELETE', '/logs')).status, 200);
    assert.equal((await es(s2, 'GET', '/_cluster/health')).json.status, 'green');
  } finally {
    await s2.destroy();
  }
});

test('with the primary failed, allocation explain of its replica names replica_after_primary_active', async () => {
  const { s, dir } = await prepare({ number_of_replicas: 1 });
  flip(dir, '.si');
  const s2 = await s.restart();
  try {
    const explain = await es(s2, 'POST', '/_cluster/allocation/explain', { index: 'logs', shard: 0, primary: false });
    assert.equal(explain.status, 200, explain.text);
    assert.deepEqual([explain.json.primary, explain.json.current_state, explain.json.can_allocate], [false, 'unassigned', 'no'], explain.text);
    assert.deepEqual(explain.json.node_allocation_decisions[0].deciders.map((d: { decider: string; decision: string }) => [d.decider, d.decision]),
      [['replica_after_primary_active', 'NO']], explain.text);
    // With the primary started, the same replica is held back by the copy on the node (same_shard).
    assert.equal((await es(s2, 'DELETE', '/logs')).status, 200);
    assert.equal((await es(s2, 'PUT', '/logs', { settings: { number_of_shards: 1, number_of_replicas: 1 } })).status, 200);
    const healthy = await es(s2, 'POST', '/_cluster/allocation/explain', { index: 'logs', shard: 0, primary: false });
    assert.deepEqual(healthy.json.node_allocation_decisions[0].deciders.map((d: { decider: string }) => d.decider), ['same_shard'], healthy.text);
  } finally {
    await s2.destroy();
  }
});

test('a damaged stored-fields block fails the shard on the first read of it, never serving a wrong document', async () => {
  const { s, dir } = await prepare();
  const file = flip(dir, '.fdt');
  const s2 = await s.restart();
  try {
    assert.equal((await es(s2, 'GET', '/_cluster/health/logs')).json.status, 'green', 'nothing read the damaged block yet');
    let failedAt = -1;
    for (let i = 0; i < 300 && failedAt < 0; i++) {
      const r = await es(s2, 'GET', `/logs/_doc/${i}`);
      if (r.status === 200) { assert.equal(r.json._source.n, i); continue; }
      assert.equal(r.status, 503, r.text);
      assert.ok(r.text.includes(file) && /offset \d+/.test(r.text), `the error names file and offset: ${r.text}`);
      failedAt = i;
    }
    assert.ok(failedAt >= 0, 'a GET reached the damaged block');
    await expectFailedShard(s2, file);
  } finally {
    await s2.destroy();
  }
});

test('index.shard.check_on_startup: checksum finds damage in any file at start-up', async () => {
  const { s, dir } = await prepare({ 'shard.check_on_startup': 'checksum' });
  const file = flip(dir, '.pos');
  const s2 = await s.restart();
  try {
    await expectFailedShard(s2, file);
  } finally {
    await s2.destroy();
  }
});

test('a lost commit point fails the shard instead of opening it without the committed documents', async () => {
  const { s, dir } = await prepare();
  // Another flush after more writes trims the translog past its first segment.
  let s2 = await s.restart();
  assert.equal((await es(s2, 'PUT', '/logs/_doc/extra?refresh=true', { body: 'common extra' })).status, 201);
  assert.equal((await es(s2, 'POST', '/logs/_flush?force=true')).status, 200);
  await s2.stop();
  const commits = readdirSync(dir).filter((f) => f.startsWith('segments_'));
  assert.ok(commits.length > 0);
  for (const f of commits) rmSync(join(dir, f));
  const segmentFiles = readdirSync(dir).length;
  s2 = await s2.restart();
  try {
    await expectFailedShard(s2, dir);
    assert.match((await es(s2, 'POST', '/logs/_search', {})).text, /without a commit point/);
    // The segment files are kept for recovery.
    assert.equal(readdirSync(dir).length, segmentFiles);
  } finally {
    await s2.destroy();
  }
});
