/**
 * What users see of the segments: `_segments` and `_cat/segments` list the real segments (in memory after a
 * refresh, committed after a flush, merged by `_forcemerge`), and `_stats` reports segments, merges, refreshes,
 * flushes, translog and store from the engine.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
before(async () => { s = await startServer({ services: ['documents'], workers: 1 }); });
after(async () => { await s.destroy(); });

async function es(method: string, path: string, body?: unknown): Promise<{ status: number; json: any; text: string }> {
  const r = await fetch(`${s.esUrl}${path}`, {
    method, headers: { 'content-type': typeof body === 'string' ? 'application/x-ndjson' : 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await r.text();
  let json: any = null;
  try { json = JSON.parse(text); } catch { /* _cat text */ }
  return { status: r.status, json, text };
}

const segmentsOf = async (): Promise<Record<string, any>> => (await es('GET', '/segs/_segments')).json.indices.segs.shards['0'][0];

test('refresh, flush, delete and force merge show in _segments, _cat/segments and _stats', async () => {
  assert.equal((await es('PUT', '/segs', { settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: -1 } })).status, 200);
  for (let b = 0; b < 3; b++) {
    let body = '';
    for (let i = b * 10; i < b * 10 + 10; i++) body += `{"index":{"_id":"${i}"}}\n{"t":"word${i} common"}\n`;
    await es('POST', '/segs/_doc/_bulk?refresh=true', body);
  }
  let shard = await segmentsOf();
  assert.equal(shard.num_search_segments, 3, 'one in-memory segment per refresh');
  assert.equal(shard.num_committed_segments, 0);
  assert.deepEqual(Object.values(shard.segments).map((x: any) => [x.num_docs, x.committed, x.search]), [[10, false, true], [10, false, true], [10, false, true]]);

  assert.equal((await es('POST', '/segs/_flush')).status, 200);
  shard = await segmentsOf();
  const committed = Object.values(shard.segments) as any[];
  assert.equal(committed.length, 1, 'a flush writes the in-memory segments as one');
  assert.deepEqual([committed[0].num_docs, committed[0].committed, committed[0].search], [30, true, true]);
  assert.ok(committed[0].size_in_bytes > 0 && committed[0].memory_in_bytes > 0);

  for (const id of ['1', '2', '3']) await es('DELETE', `/segs/_doc/${id}`);
  await es('POST', '/segs/_refresh');
  shard = await segmentsOf();
  assert.equal((Object.values(shard.segments)[0] as any).deleted_docs, 3);
  const cat = (await es('GET', '/_cat/segments/segs?h=segment,docs.count,docs.deleted,committed,searchable')).text.trim().split(/\s+/);
  assert.deepEqual(cat.slice(1), ['27', '3', 'true', 'true']);

  assert.equal((await es('POST', '/segs/_forcemerge?max_num_segments=1&only_expunge_deletes=true')).status, 400);
  assert.equal((await es('POST', '/segs/_forcemerge?max_num_segments=1')).status, 200);
  await es('POST', '/segs/_refresh');
  shard = await segmentsOf();
  const merged = Object.values(shard.segments) as any[];
  assert.deepEqual(merged.map((x) => [x.num_docs, x.deleted_docs, x.committed]), [[27, 0, true]], 'merged, deletes dropped, flushed');

  const stats = (await es('GET', '/segs/_stats')).json._all.primaries;
  assert.equal(stats.docs.count, 27);
  assert.equal(stats.segments.count, 1);
  assert.ok(stats.merges.total >= 1 && stats.merges.total_docs >= 30, JSON.stringify(stats.merges));
  assert.deepEqual([stats.merges.current, stats.merges.current_docs, stats.merges.current_size_in_bytes], [0, 0, 0], 'no merge runs now');
  for (const t of [stats.merges.total_time_in_millis, stats.refresh.total_time_in_millis, stats.flush.total_time_in_millis]) assert.ok(Number.isInteger(t) && t >= 0);
  assert.ok(stats.flush.total >= 2 && stats.refresh.total >= 4);
  assert.equal(stats.translog.operations, 0, 'the flush after the merge emptied the translog');
  assert.ok(stats.store.size_in_bytes >= merged[0].size_in_bytes);
  assert.equal((await es('GET', '/segs/_count')).json.count, 27);
});

test('an idle shard commits its background merge, so the merged-away segment files leave the disk', async () => {
  assert.equal((await es('PUT', '/idle', { settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '100ms' } })).status, 200);
  // Eleven committed segments: one more than the tiered policy's segments_per_tier, so a background merge runs.
  for (let b = 0; b < 11; b++) {
    let body = '';
    for (let i = b * 5; i < b * 5 + 5; i++) body += `{"index":{"_id":"${i}"}}\n{"t":"word${i} common"}\n`;
    assert.equal((await es('POST', '/idle/_doc/_bulk?refresh=true', body)).status, 200);
    assert.equal((await es('POST', '/idle/_flush')).status, 200);
  }
  const uuid = (await es('GET', '/idle/_settings')).json.idle.settings.index.uuid;
  const dir = join(s.dataDir, 'es', 'indices', uuid, '0', 'index');
  const onDisk = () => readdirSync(dir).filter((f) => f.endsWith('.si')).map((f) => f.slice(0, -3)).sort();
  // Background work (merges, the refresh publishing them, the commit): wait, bounded, for the end state.
  let last = '';
  for (const until = Date.now() + 60_000; ;) {
    const segs = (await es('GET', '/idle/_segments')).json.indices.idle.shards['0'][0].segments;
    const listed = Object.keys(segs).sort();
    last = JSON.stringify({ listed: Object.entries(segs).map(([k, x]: [string, any]) => [k, x.num_docs, x.committed]), onDisk: onDisk() });
    if (listed.length < 11 && Object.values(segs).every((x: any) => x.committed) && JSON.stringify(onDisk()) === JSON.stringify(listed)) break;
    assert.ok(Date.now() < until, `the merge was never committed, or merged-away files stayed: ${last}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal((await es('GET', '/idle/_count')).json.count, 55);
});
