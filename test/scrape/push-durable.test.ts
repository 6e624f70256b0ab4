/**
 * Issue 16 §5: the push gateway answers only once a push is on disk (temp file, fsync, rename), so an
 * acknowledged push survives `kill -9`. Before, the reply went out first and the file was written after.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
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

// The state file cannot be written (its temporary name is taken by a directory): the push is answered 500 with the
// cause and is never served; an earlier push stays; once the file can be written again, pushes are kept.
test('a push whose save fails is answered 500 and is not served; later pushes are', async () => {
  const srv = await startServer({ services: ['metrics'], workers: 1 });
  try {
    const push = (job: string, body: string): Promise<Response> => fetch(`${srv.promUrl}/metrics/job/${job}`, { method: 'PUT', body });
    const served = async (): Promise<string> => (await fetch(`${srv.promUrl}/pushgateway/metrics`)).text();
    assert.equal((await push('kept', 'kept_metric 1\n')).status, 200);
    const blocker = join(srv.dataDir, 'pushgateway.json.tmp');
    mkdirSync(blocker);
    const failed = await push('lost', 'lost_metric 2\n');
    assert.equal(failed.status, 500);
    assert.match(await failed.text(), /saving the push gateway state failed/);
    const replaced = await push('kept', 'kept_metric 3\n');
    assert.equal(replaced.status, 500);
    let text = await served();
    assert.doesNotMatch(text, /lost_metric/);
    assert.match(text, /kept_metric\{job="kept"\} 1\n/);
    rmSync(blocker, { recursive: true });
    assert.equal((await push('later', 'later_metric 4\n')).status, 200);
    text = await served();
    assert.match(text, /later_metric\{job="later"\} 4/);
    assert.doesNotMatch(text, /lost_metric/);
    assert.doesNotMatch(readFileSync(join(srv.dataDir, 'pushgateway.json'), 'utf8'), /lost_metric/);
  } finally {
    await srv.destroy();
  }
});
