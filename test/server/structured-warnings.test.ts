/**
 * Issue 16 §4: WAL repair warnings go to the structured log. A shard worker's warnings (a torn translog tail
 * truncated at start-up here) come out as logfmt lines naming the worker, like the main thread's, not as bare
 * console text or Node's `(node:PID) Warning:` lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../support/server.ts';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => { const p = join(dir, n); return statSync(p).isDirectory() ? filesUnder(p) : [p]; });
}

test('a torn translog tail truncated at start-up is a logfmt warn line naming the worker', async () => {
  let srv = await startServer({ services: ['documents'], workers: 1 });
  try {
    const put = await fetch(`${srv.esUrl}/w/_doc/1`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    assert.equal(put.status, 201);
    await srv.kill9();
    // A record header whose length runs past the end of the file: the start of a write the crash cut short.
    const translog = filesUnder(srv.dataDir).filter((f) => f.includes(`translog`) && statSync(f).size > 0);
    assert.equal(translog.length, 1, translog.join(', '));
    appendFileSync(translog[0], Buffer.from([0x01, 0x00, 0x40, 0xff, 0xff, 0xff, 0xff, 1, 2, 3]));
    srv = await srv.restart();
    assert.equal((await fetch(`${srv.esUrl}/w/_doc/1`)).status, 200);
    assert.match(srv.stderr(), /^ts=\S+ level=warn msg="WAL: truncating torn tail of [^"]*translog[^"]*" worker=0 warning=\w+$/m, srv.stderr());
  } finally {
    await srv.destroy();
  }
});
