/**
 * Index write blocks and the flood-stage disk watermark, over HTTP: a blocked index refuses document writes
 * (single and bulk items) with ES 6.8's 403 cluster_block_exception and keeps serving reads; resetting the
 * block to null lifts it. The flood stage is reached by setting it as a free-space amount larger than any disk.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';
import { esCall } from '../support/es-call.ts';
import { waitFor } from '../support/wait-for.ts';

let s: TestServer;
before(async () => { s = await startServer({ services: ['documents'], workers: 1 }); });
after(async () => { await s.destroy(); });

const call = (method: string, path: string, body?: unknown, ndjson = false) => esCall(s, method, path, body, ndjson);

async function assertBlocked(index: string, block: string): Promise<void> {
  const r = await call('PUT', `/${index}/_doc/x?refresh=true`, { n: 1 });
  assert.equal(r.status, 403);
  assert.equal(r.body.error.type, 'cluster_block_exception');
  assert.equal(r.body.error.reason, `blocked by: [${block}];`);
  const b = await call('POST', '/_bulk', `{"index":{"_index":"${index}","_type":"_doc","_id":"y"}}\n{"n":2}\n{"delete":{"_index":"${index}","_type":"_doc","_id":"1"}}\n`, true);
  assert.equal(b.status, 200);
  assert.equal(b.body.errors, true);
  for (const item of b.body.items) {
    const res = item.index ?? item.delete;
    assert.equal(res.status, 403);
    assert.equal(res.error.type, 'cluster_block_exception');
  }
  // Reads go on.
  assert.equal((await call('GET', `/${index}/_doc/1`)).body.found, true);
  assert.equal((await call('GET', `/${index}/_count`)).body.count, 1);
}

test('index.blocks.write / read_only / read_only_allow_delete refuse writes until reset to null', async () => {
  assert.equal((await call('PUT', '/blk/_doc/1?refresh=true', { n: 0 })).status, 201);
  const cases: [setting: string, block: string][] = [
    ['index.blocks.write', 'FORBIDDEN/8/index write (api)'],
    ['index.blocks.read_only', 'FORBIDDEN/5/index read-only (api)'],
    ['index.blocks.read_only_allow_delete', 'FORBIDDEN/12/index read-only / allow delete (api)'],
  ];
  for (const [setting, block] of cases) {
    assert.equal((await call('PUT', '/blk/_settings', { [setting]: true })).status, 200);
    assert.equal((await call('GET', '/blk/_settings?flat_settings=true')).body.blk.settings[setting], 'true');
    await assertBlocked('blk', block);
    assert.equal((await call('PUT', '/blk/_settings', { [setting]: null })).status, 200);
    assert.equal((await call('GET', '/blk/_settings?flat_settings=true')).body.blk.settings[setting], undefined);
    assert.equal((await call('PUT', '/blk/_doc/2', { n: 2 })).status, 201);
    assert.equal((await call('DELETE', '/blk/_doc/2?refresh=true')).status, 200);
  }
  const bad = await call('PUT', '/blk/_settings', { 'index.no_such_thing': null });
  assert.equal(bad.status, 400);
});

test('the flood-stage watermark marks every index read-only / allow delete; deleting an index stays allowed', async () => {
  assert.equal((await call('PUT', '/flood/_doc/1?refresh=true', { n: 0 })).status, 201);
  assert.equal((await call('PUT', '/flood2/_doc/1?refresh=true', { n: 0 })).status, 201);
  const bad = await call('PUT', '/_cluster/settings', { transient: { 'cluster.routing.allocation.disk.watermark.flood_stage': 'lots' } });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.reason, /failed to parse setting \[cluster\.routing\.allocation\.disk\.watermark\.flood_stage\] with value \[lots\]/);
  // Free-space watermarks larger than any disk: every one is exceeded at the next check.
  const r = await call('PUT', '/_cluster/settings', { transient: {
    'cluster.routing.allocation.disk.watermark.low': '3000tb', 'cluster.routing.allocation.disk.watermark.high': '2000tb',
    'cluster.routing.allocation.disk.watermark.flood_stage': '1000tb', 'cluster.info.update.interval': '1s' } });
  assert.equal(r.status, 200);
  // The monitor's next check (within about two seconds) sets the block.
  await waitFor('the flood-stage block on both indices', async () => {
    const st = (await call('GET', '/flood,flood2/_settings?flat_settings=true')).body;
    return st.flood.settings['index.blocks.read_only_allow_delete'] === 'true' && st.flood2.settings['index.blocks.read_only_allow_delete'] === 'true';
  });
  await assertBlocked('flood', 'FORBIDDEN/12/index read-only / allow delete (api)');
  assert.equal((await call('DELETE', '/flood2')).status, 200);
  // Space back (the watermarks restored), the operator lifts the block, as in 6.8.
  await call('PUT', '/_cluster/settings', { transient: {
    'cluster.routing.allocation.disk.watermark.low': null, 'cluster.routing.allocation.disk.watermark.high': null,
    'cluster.routing.allocation.disk.watermark.flood_stage': null } });
  assert.equal((await call('PUT', '/_all/_settings', { 'index.blocks.read_only_allow_delete': null })).status, 200);
  assert.equal((await call('PUT', '/flood/_doc/2', { n: 2 })).status, 201);
});
