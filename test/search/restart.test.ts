/** Search survives a restart: the index is rebuilt from the shard's snapshot + translog with identical hits and scores. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.ts';

const post = async (url: string, body: unknown): Promise<string> => {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return r.text();
};

test('hits and scores are identical after a restart (and after kill -9)', async () => {
  let s = await startServer({ services: ['documents'], workers: 2 });
  try {
    const lines = ['alpha beta', 'beta gamma delta', 'alpha alpha', 'gamma'].flatMap((t, i) => [JSON.stringify({ index: { _id: String(i) } }), JSON.stringify({ t, n: i })]).join('\n') + '\n';
    await fetch(`${s.esUrl}/r/_doc/_bulk?refresh=true`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines });
    await fetch(`${s.esUrl}/r/_doc/1?refresh=true`, { method: 'DELETE' });
    const q = { query: { match: { t: 'alpha gamma' } }, aggs: { s: { sum: { field: 'n' } } } };
    const strip = (t: string): string => t.replace(/"took":\d+,/, '');
    const before = strip(await post(`${s.esUrl}/r/_search`, q));
    assert.match(before, /"total":3/);
    await s.stop();
    s = await s.restart();
    assert.equal(strip(await post(`${s.esUrl}/r/_search`, q)), before);
    await s.kill9();
    s = await s.restart();
    assert.equal(strip(await post(`${s.esUrl}/r/_search`, q)), before);
  } finally {
    await s.destroy();
  }
});
