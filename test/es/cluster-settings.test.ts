/**
 * `_cluster/settings`: persistent settings survive a restart and transient ones do not; flat and nested forms,
 * defaults, ES's errors; and the settings that act: auto-creation, destructive_requires_name, write blocks.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';
import { esCall } from '../support/es-call.ts';

let s: TestServer;
before(async () => { s = await startServer({ services: ['documents'], workers: 1 }); });
after(async () => { await s.destroy(); });

const call = (method: string, path: string, body?: unknown, ndjson = false) => esCall(s, method, path, body, ndjson);

const put = (persistent: object, transient: object = {}) => call('PUT', '/_cluster/settings', { persistent, transient });

test('persistent and transient settings: nested and flat, transient wins, defaults, removal, errors', async () => {
  let r = await put({ indices: { recovery: { max_bytes_per_sec: '50mb' } }, 'logger.org.elasticsearch.index': 'DEBUG' }, { 'indices.recovery.max_bytes_per_sec': '20mb' });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { acknowledged: true, persistent: { indices: { recovery: { max_bytes_per_sec: '50mb' } }, logger: { org: { elasticsearch: { index: 'DEBUG' } } } },
    transient: { indices: { recovery: { max_bytes_per_sec: '20mb' } } } });
  r = await call('GET', '/_cluster/settings?flat_settings=true');
  assert.deepEqual(r.body, { persistent: { 'indices.recovery.max_bytes_per_sec': '50mb', 'logger.org.elasticsearch.index': 'DEBUG' }, transient: { 'indices.recovery.max_bytes_per_sec': '20mb' } });
  r = await call('GET', '/_cluster/settings?include_defaults=true&flat_settings=true');
  assert.equal(r.body.defaults['action.auto_create_index'], 'true');
  assert.equal(r.body.defaults['cluster.routing.allocation.disk.watermark.high'], '90%');
  r = await put({ 'logger.org.elasticsearch.index': null });
  assert.deepEqual(r.body.persistent, {});
  r = await call('GET', '/_cluster/settings?flat_settings=true');
  assert.deepEqual(r.body.persistent, { 'indices.recovery.max_bytes_per_sec': '50mb' });

  r = await put({ 'no.such.setting': 1 });
  assert.equal(r.status, 400);
  assert.deepEqual([r.body.error.type, r.body.error.reason], ['illegal_argument_exception', 'persistent setting [no.such.setting], not recognized']);
  r = await put({}, { 'cluster.blocks.read_only': 'maybe' });
  assert.equal(r.status, 400);
  r = await call('PUT', '/_cluster/settings', { persistent: {} });
  assert.equal(r.status, 400);
  assert.equal(r.body.error.reason, 'Validation Failed: 1: no settings to update;');
  r = await call('GET', '/_cluster/settings?flat_settings=true');
  assert.deepEqual(r.body.persistent, { 'indices.recovery.max_bytes_per_sec': '50mb' }, 'refused updates change nothing');
});

test('action.auto_create_index: false, and a +/- pattern list', async () => {
  await put({ 'action.auto_create_index': 'false' });
  let r = await call('PUT', '/fresh/_doc/1', { a: 1 });
  assert.equal(r.status, 404);
  assert.equal(r.body.error.type, 'index_not_found_exception');
  await call('PUT', '/made');
  assert.equal((await call('PUT', '/made/_doc/1', { a: 1 })).status, 201, 'existing indices take writes');
  await put({ 'action.auto_create_index': '+logs-*,-*' });
  assert.equal((await call('PUT', '/logs-1/_doc/1', { a: 1 })).status, 201);
  r = await call('POST', '/_bulk', '{"index":{"_index":"other","_type":"_doc","_id":"1"}}\n{"a":1}\n', true);
  assert.equal(r.body.items[0].index.status, 404);
  assert.equal((await call('HEAD', '/other')).status, 404);
  await put({ 'action.auto_create_index': null });
  assert.equal((await call('PUT', '/other/_doc/1', { a: 1 })).status, 201);
});

test('action.destructive_requires_name refuses wildcard and _all deletions', async () => {
  await call('PUT', '/keep-me');
  await put({}, { 'action.destructive_requires_name': true });
  for (const path of ['/_all', '/keep-*']) {
    const r = await call('DELETE', path);
    assert.equal(r.status, 400, path);
    assert.equal(r.body.error.reason, 'Wildcard expressions or all indices are not allowed');
  }
  assert.equal((await call('HEAD', '/keep-me')).status, 200);
  await put({}, { 'action.destructive_requires_name': null });
  assert.equal((await call('DELETE', '/keep-*')).status, 200);
});

test('cluster.blocks.read_only and read_only_allow_delete block writes with cluster_block_exception', async () => {
  await call('PUT', '/blk/_doc/1?refresh=true', { a: 1 });
  await put({ 'cluster.blocks.read_only': true });
  let r = await call('PUT', '/blk/_doc/2', { a: 2 });
  assert.equal(r.status, 403);
  assert.deepEqual([r.body.error.type, r.body.error.reason], ['cluster_block_exception', 'blocked by: [FORBIDDEN/6/cluster read-only (api)];']);
  r = await call('POST', '/_bulk', '{"index":{"_index":"blk","_type":"_doc","_id":"3"}}\n{"a":3}\n', true);
  assert.equal(r.status, 403);
  assert.equal((await call('DELETE', '/blk')).status, 403);
  assert.equal((await call('GET', '/blk/_doc/1')).status, 200, 'reads go on');
  await put({ 'cluster.blocks.read_only': null, 'cluster.blocks.read_only_allow_delete': true });
  r = await call('DELETE', '/blk/_doc/1');
  assert.equal(r.body.error.reason, 'blocked by: [FORBIDDEN/13/cluster read-only / allow delete (api)];');
  assert.equal((await call('DELETE', '/blk')).status, 200, 'deleting an index is allowed');
  await put({ 'cluster.blocks.read_only_allow_delete': null });
  assert.equal((await call('PUT', '/blk/_doc/1', { a: 1 })).status, 201);
});

test('persistent settings survive a restart, transient ones do not', async () => {
  await put({ 'search.max_buckets': '5000' }, { 'cluster.routing.allocation.enable': 'primaries' });
  await s.stop();
  s = await s.restart();
  const r = await call('GET', '/_cluster/settings?flat_settings=true');
  assert.equal(r.body.persistent['search.max_buckets'], '5000');
  assert.deepEqual(r.body.transient, {});
});
