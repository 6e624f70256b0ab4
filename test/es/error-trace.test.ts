/** `?error_trace=true` adds a `stack_trace` to every error object of the envelope; without it there is none. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';
import { esCall } from '../support/es-call.ts';

let s: TestServer;
before(async () => { s = await startServer({ services: ['documents'], workers: 1 }); });
after(async () => { await s.destroy(); });

test('error_trace adds stack_trace to the error, its root cause and its causes', async () => {
  const plain = await esCall(s, 'GET', '/nope/_doc/1');
  assert.equal(plain.status, 404);
  assert.equal(JSON.stringify(plain.body).includes('stack_trace'), false);
  const traced = await esCall(s, 'GET', '/nope/_doc/1?error_trace=true');
  assert.equal(traced.status, 404);
  assert.equal(traced.body.error.type, 'index_not_found_exception');
  assert.match(traced.body.error.stack_trace, /^index_not_found_exception\[no such index\]\n\s+at /);
  assert.equal(traced.body.error.root_cause[0].stack_trace, traced.body.error.stack_trace);
  // A parse failure: the top error and its caused_by each carry one.
  const bad = await esCall(s, 'PUT', '/logs/_doc/1?error_trace=true', '{"a": ', true);
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.stack_trace, /^mapper_parsing_exception\[failed to parse\]/);
  assert.match(bad.body.error.caused_by.stack_trace, /^json_parse_exception\[/);
});
