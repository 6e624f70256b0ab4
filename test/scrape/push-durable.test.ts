/**
 * Issue 16 §5: the push gateway answers only once a push is on disk (temp file, fsync, rename), so an
 * acknowledged push survives `kill -9`. Before, the reply went out first and the file was written after.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../support/server.ts';

test('an acknowledged push is already in the persistence file and survives kill -9', async () => {
  let srv = await startServer({ services: ['metrics'], workers: 1 });
  try {
    // Large enough that writing the file takes a while after the reply, if the reply did not wait for it.
    const lines: string[] = [];
    for (let i = 0; i < 60_000; i++) lines.push(`durable_push_metric{i="${i}"} ${i}`);
    const r = await fetch(`${srv.promUrl}/metrics/job/durable/instance/box`, { method: 'PUT', body: `${lines.join('\n')}\n` });
    assert.equal(r.status, 200, await r.text());
    const saved = readFileSync(join(srv.dataDir, 'pushgateway.json'), 'utf8');
    assert.match(saved, /durable_push_metric/);
    assert.match(saved, /i=\\?"59999\\?"|"59999"/);
    await srv.kill9();
    srv = await srv.restart();
    const text = await (await fetch(`${srv.promUrl}/pushgateway/metrics`)).text();
    assert.match(text, /durable_push_metric\{i="59999",instance="box",job="durable"\} 59999/);
  } finally {
    await srv.destroy();
  }
});
