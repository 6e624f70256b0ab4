/**
 * `_cat/recovery` reports how each primary came up: empty_store for a new index; after a kill -9, existing_store
 * with the translog operations replayed; after a clean stop (a flush), existing_store from the committed files.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.ts';
import { esCall } from '../support/es-call.ts';

const COLS = 'index,shard,type,stage,files,files_percent,files_total,bytes,bytes_total,translog_ops,translog_ops_recovered,translog_ops_percent,time';

test('recovery rows follow how the shard was opened', async () => {
  let s = await startServer({ services: ['documents'], workers: 1 });
  try {
    assert.equal((await esCall(s, 'PUT', '/r', { settings: { number_of_shards: 1, number_of_replicas: 0 } })).status, 200);
    const bulk = ['1', '2', '3'].flatMap((id) => [JSON.stringify({ index: { _id: id } }), JSON.stringify({ a: id })]).join('\n') + '\n';
    assert.equal((await esCall(s, 'POST', '/r/_doc/_bulk', bulk, true)).status, 200);
    let rows = (await esCall(s, 'GET', `/_cat/recovery?format=json&h=${COLS}`)).body;
    assert.equal(rows.length, 1);
    assert.deepEqual({ ...rows[0], time: undefined }, { index: 'r', shard: '0', type: 'empty_store', stage: 'done', files: '0', files_percent: '0.0%', files_total: '0',
      bytes: '0', bytes_total: '0', translog_ops: '0', translog_ops_recovered: '0', translog_ops_percent: '100.0%', time: undefined });
    assert.match(rows[0].time, /^(0s|\d+(\.\d)?(ms|s|micros))$/);

    await s.kill9();
    s = await s.restart();
    rows = (await esCall(s, 'GET', `/_cat/recovery/r?format=json&h=${COLS}`)).body;
    assert.equal(rows[0].type, 'existing_store');
    assert.equal(rows[0].translog_ops, '3');
    assert.equal(rows[0].translog_ops_recovered, '3');

    await s.stop();
    s = await s.restart();
    rows = (await esCall(s, 'GET', `/_cat/recovery?format=json&h=${COLS}`)).body;
    assert.equal(rows[0].type, 'existing_store');
    assert.equal(rows[0].translog_ops, '0');
    assert.ok(Number(rows[0].files_total) > 0 && Number(rows[0].bytes_total) > 0, JSON.stringify(rows[0]));
    assert.equal(rows[0].files_percent, '100.0%');
    assert.deepEqual((await esCall(s, 'GET', '/_cat/recovery?active_only=true&format=json')).body, []);
    const api = (await esCall(s, 'GET', '/r/_recovery?human')).body;
    const shard = api.r.shards[0];
    assert.deepEqual(Object.keys(shard), ['id', 'type', 'stage', 'primary', 'start_time', 'start_time_in_millis', 'stop_time', 'stop_time_in_millis', 'total_time', 'total_time_in_millis', 'source', 'target', 'index', 'translog', 'verify_index']);
    assert.equal(shard.type, 'EXISTING_STORE');
    assert.equal(shard.stage, 'DONE');
    assert.equal(shard.index.files.total, Number(rows[0].files_total));
    assert.equal(shard.index.files.reused, shard.index.files.total);
    assert.equal(shard.index.size.total_in_bytes, Number(rows[0].bytes_total));
    assert.equal(shard.translog.recovered, 0);
    assert.deepEqual((await esCall(s, 'GET', '/_recovery?active_only=true')).body, {});
    const text = (await esCall(s, 'GET', '/_cat/recovery?v')).body as string;
    assert.match(text.split('\n')[0], /^index\s+shard\s+time\s+type\s+stage\s+source_host\s+source_node\s+target_host\s+target_node\s+repository\s+snapshot\s+files\s+files_recovered\s+files_percent\s+files_total\s+bytes\s+bytes_recovered\s+bytes_percent\s+bytes_total\s+translog_ops\s+translog_ops_recovered\s+translog_ops_percent$/);
  } finally {
    await s.destroy();
  }
});
