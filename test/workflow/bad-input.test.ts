/**
 * Bad input for every endpoint (cases/bad-input.json): malformed JSON, wrong types, unknown actions and
 * properties, unknown ids, an oversized body. Each gets the spec's error envelope and changes nothing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { A, E, channels, event, save, startFlow, workflow, type Flow } from './helpers.ts';

interface Case { name: string; method: string; path: string; body?: unknown; raw?: string; status: number; code: string }
const CASES = JSON.parse(readFileSync(new URL('./cases/bad-input.json', import.meta.url), 'utf8')) as Case[];

let f: Flow;
before(async () => {
  f = await startFlow();
  await channels(f, 9, await f.now());
  await save(f, workflow(9, [E('ch1', 'submit'), A('block-a1', { action: 'tag', actionValue: 'ok', delay: 60_000 }, ['path-1'])]));
  await event(f, { event: 'submit', channel_id: 'ch1', business_id: 9, contact_id: 'c1' });
});
after(async () => { await f?.server.destroy(); });

/** Everything observable that a request could have changed. */
async function snapshot(): Promise<string> {
  const parts = await Promise.all([
    f.api('GET', '/workflow/manage?size=1000'), f.api('GET', '/livestream/channels/businessId/9'), f.api('GET', '/workflow/actions'),
    f.api('GET', '/workflow/outbox'), f.api('GET', '/rest/livestream/state/9/c1?raw=true'), f.api('GET', '/contacts/9/c1'),
    f.api('GET', '/workflow/manage/1/runs'), f.api('GET', '/health'),
  ]);
  // LMDB's own counters (`commits.kv`) move on after the last commit: LMDB is written behind the commit log.
  const health = parts[parts.length - 1].body.data;
  if (health?.commits) delete health.commits.kv;
  return JSON.stringify(parts.map((p) => p.body.data));
}

test('every bad request gets its error envelope and changes nothing', async () => {
  const before = await snapshot();
  for (const c of CASES) {
    const r = c.raw !== undefined ? await f.raw(c.method, c.path, c.raw) : await f.api(c.method, c.path, c.body);
    assert.equal(r.status, c.status, `${c.name}: ${r.body.error}`);
    assert.equal(r.body.success, false, c.name);
    assert.match(r.body.error, new RegExp(`^${c.code}: .+`), c.name);
    assert.ok('data' in r.body, `${c.name}: envelope has data`);
  }
  assert.equal(await snapshot(), before);
});

test('an oversized body is refused with PAYLOAD_TOO_LARGE', async () => {
  const before = await snapshot();
  const big = JSON.stringify({ event: 'play', channel_id: 'ch1', business_id: 9, contact_id: 'c1', pad: 'x'.repeat(2 * 1024 * 1024) });
  for (const path of ['/rest/livestream/event', '/workflow/manage', '/livestream/channels']) {
    const r = await f.raw('POST', path, big);
    assert.equal(r.status, 413, path);
    assert.match(r.body.error, /^PAYLOAD_TOO_LARGE: /);
  }
  assert.equal(await snapshot(), before);
});

test('batch items fail one by one with the same codes', async () => {
  const r = await f.api('POST', '/rest/livestream/events', { events: [{ event: 'leave', channel_id: 'ch1', business_id: 9, contact_id: 'c9' }, { event: 'play', channel_id: 'zz', business_id: 9, contact_id: 'c9' }] });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.data.results.map((x: any) => [x.success, x.error.split(':')[0]]), [[false, 'UNSUPPORTED_EVENT'], [false, 'CHANNEL_NOT_FOUND']]);
});
