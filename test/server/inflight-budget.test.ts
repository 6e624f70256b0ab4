/**
 * Issue 16 §2: request bodies held in memory are bounded node-wide (`--network.breaker.inflight_requests.limit`,
 * Elasticsearch 6.8's in-flight breaker). A body that does not fit is refused with each API's overload reply
 * (ES 429 circuit_breaking_exception, Prometheus 503 unavailable, workflow 429), and the budget comes back
 * once the holding request is answered.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { startServer, type TestServer } from '../support/server.ts';

const MB = 1024 * 1024;
let srv: TestServer;
before(async () => { srv = await startServer({ workers: 1, args: ['--network.breaker.inflight_requests.limit', '4MB'] }); });
after(async () => { await srv?.destroy(); });

interface Upload { sock: Socket; reply: Promise<string>; finish(): void }

/** Starts a request whose body is `bytes` long (a JSON document) and sends all but its last byte. */
async function partial(base: string, path: string, method: string, bytes: number): Promise<Upload> {
  const u = new URL(base);
  const body = Buffer.from(`{"f":"${'a'.repeat(bytes - 8)}"}`);
  assert.equal(body.length, bytes);
  const sock = connect(Number(u.port), '127.0.0.1');
  await new Promise<void>((r) => sock.once('connect', () => r()));
  let got = '';
  const reply = new Promise<string>((resolve) => {
    sock.on('data', (d) => { got += d; if (/\r\n\r\n/.test(got)) setTimeout(() => resolve(got), 20); });
    sock.on('close', () => resolve(got));
  });
  sock.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n`);
  await new Promise<void>((r) => sock.write(body.subarray(0, bytes - 1), () => r()));
  return { sock, reply, finish: () => sock.write(body.subarray(bytes - 1)) };
}

async function whole(base: string, path: string, method: string, bytes: number): Promise<{ status: number; text: string }> {
  const r = await fetch(base + path, { method, headers: { 'content-type': 'application/json' }, body: `{"f":"${'a'.repeat(bytes - 8)}"}` });
  return { status: r.status, text: await r.text() };
}

test('bodies past the node-wide in-flight limit are refused by every API until the budget is given back', async () => {
  const holder = await partial(srv.esUrl, '/held/_doc/1', 'PUT', 3.5 * MB);
  try {
    const es = await whole(srv.esUrl, '/other/_doc/1', 'PUT', 1 * MB);
    assert.equal(es.status, 429, es.text);
    const err = JSON.parse(es.text).error;
    assert.equal(err.type, 'circuit_breaking_exception');
    assert.match(err.reason, /^\[in_flight_requests\] Data too large, data for \[<http_request>\] would be \[\d+\/4\.5mb\], which is larger than the limit of \[4194304\/4mb\]$/);
    assert.equal(err.bytes_limit, 4 * MB);
    const prom = await whole(srv.promUrl, '/api/v1/query', 'POST', 1 * MB);
    assert.equal(prom.status, 503, prom.text);
    assert.equal(JSON.parse(prom.text).errorType, 'unavailable');
    const flow = await whole(srv.flowUrl, '/workflow/manage', 'POST', 900 * 1024);
    assert.equal(flow.status, 429, flow.text);
    assert.match(JSON.parse(flow.text).error, /^TOO_MANY_REQUESTS/);
    assert.equal((await fetch(`${srv.esUrl}/other/_doc/1`)).status, 404, 'the refused document was not stored');
  } finally {
    holder.finish();
  }
  assert.match(await holder.reply, /^HTTP\/1\.1 201 /);
  holder.sock.destroy();
  const again = await whole(srv.esUrl, '/other/_doc/1', 'PUT', 1 * MB);
  assert.equal(again.status, 201, again.text);
});
