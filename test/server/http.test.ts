import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
before(async () => { s = await startServer({ workers: 1 }); });
after(async () => { await s.destroy(); });

/**
 * Sends raw bytes and returns what came back before the server closed or `ms` passed; with `destroyAfterSend`
 * it resets the connection right after writing and resolves once the socket is closed.
 */
function raw(url: string, chunks: (string | Buffer)[], ms = 1500, destroyAfterSend = false): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const sock = connect(Number(port), '127.0.0.1');
    let out = '';
    sock.on('data', (d) => { out += d; });
    sock.on('error', () => {});
    sock.on('connect', () => {
      for (const c of chunks) sock.write(c);
      if (destroyAfterSend) sock.end(() => sock.destroy()); // flushed, then reset mid-upload
    });
    sock.on('close', () => resolve(destroyAfterSend ? '' : out));
    // (An aborting send must not race this timer: with a short `ms` it fired before 'connect', and nothing was sent.)
    if (!destroyAfterSend) setTimeout(() => { sock.destroy(); resolve(out); }, ms);
  });
}

test('GET / answers the Elasticsearch 6.8 banner that clients check', async () => {
  const res = await fetch(`${s.esUrl}/`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^application\/json/);
  const body = (await res.json()) as any;
  assert.deepEqual(Object.keys(body), ['name', 'cluster_name', 'cluster_uuid', 'version', 'tagline']);
  assert.match(body.version.number, /^6\.8\.\d+$/);
  assert.equal(body.version.lucene_version, '7.7.3');
  assert.equal(body.version.minimum_wire_compatibility_version, '5.6.0');
  assert.equal(body.tagline, 'You Know, for Search');
  const again = (await (await fetch(`${s.esUrl}/`)).json()) as any;
  assert.equal(again.cluster_uuid, body.cluster_uuid, 'cluster uuid is stable');
});

test('HEAD / has the headers and no body', async () => {
  const res = await fetch(`${s.esUrl}/`, { method: 'HEAD' });
  assert.equal(res.status, 200);
  assert.equal(await res.text(), '');
  assert.ok(Number(res.headers.get('content-length')) > 100);
});

test('?pretty prints the banner indented the way Elasticsearch does', async () => {
  const text = await (await fetch(`${s.esUrl}/?pretty`)).text();
  assert.match(text, /^\{\n  "name" : "/);
  assert.ok(text.endsWith('}\n'));
});

const lifecycleCases: [string, string, number, RegExp][] = [
  ['GET', '/-/healthy', 200, /^Prometheus Server is Healthy\.\n$/],
  ['GET', '/-/ready', 200, /^Prometheus Server is Ready\.\n$/],
  ['POST', '/-/reload', 403, /^Lifecycle API is not enabled\.$/],
  ['PUT', '/-/reload', 403, /^Lifecycle API is not enabled\.$/],
  ['POST', '/-/quit', 403, /^Lifecycle API is not enabled\.$/],
  ['GET', '/-/reload', 405, /Method Not Allowed/],
  ['GET', '/no/such/path', 404, /^404 page not found\n$/],
];
for (const [method, path, status, body] of lifecycleCases) {
  test(`metrics port: ${method} ${path} → ${status}`, async () => {
    const res = await fetch(`${s.promUrl}${path}`, { method });
    assert.equal(res.status, status);
    assert.match(await res.text(), body);
  });
}

test('/metrics is valid Prometheus text exposition with request, queue and process metrics', async () => {
  await fetch(`${s.esUrl}/`);
  const res = await fetch(`${s.promUrl}/metrics`);
  assert.match(res.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const sample = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? (-?[0-9.eE+-]+|NaN|[+-]Inf)$/;
  const typed = new Set<string>();
  for (const line of text.trimEnd().split('\n')) {
    if (line.startsWith('# HELP ')) continue;
    const t = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (t) { assert.ok(!typed.has(t[1]), `duplicate TYPE ${t[1]}`); typed.add(t[1]); continue; }
    assert.match(line, sample);
  }
  for (const name of ['tessera_wal_fsyncs_total', 'tessera_wal_bytes_written_total', 'tessera_worker_heap_bytes', 'tessera_http_requests_total', 'tessera_http_request_duration_seconds', 'tessera_worker_queue_depth', 'process_resident_memory_bytes', 'process_cpu_seconds_total']) {
    assert.ok(typed.has(name), `missing ${name}`);
  }
  assert.match(text, /tessera_http_requests_total\{api="documents",route="\/",code="200"\} [1-9]/);
});

test('a body over the limit gets 413 in the API envelope (declared length)', async () => {
  // The server reads an over-limit body to its end before answering (so the reply is not lost to a reset);
  // a client that stops sending gets the 413 once it has sent nothing for 250 ms (http.ts DRAIN_IDLE_MS).
  const reply = await raw(s.esUrl, ['PUT /idx HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 209715200\r\n\r\n{'], 5_000);
  assert.match(reply, /^HTTP\/1\.1 413 /);
  const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4));
  assert.equal(body.status, 413);
  assert.ok(body.error.type);
});

test('a streamed body over the workflow limit (1 MB) gets 413 with the workflow envelope', async () => {
  const res = await fetch(`${s.flowUrl}/workflow/manage`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(2 * 1024 * 1024),
  }).catch((e) => e as Error);
  if (res instanceof Error) assert.fail(`connection failed: ${res.message}`);
  assert.equal(res.status, 413);
  const body = (await res.json()) as any;
  assert.equal(body.success, false);
  assert.match(body.error, /^PAYLOAD_TOO_LARGE/);
});

test('a body arrives whole however it is cut: declared length in many writes, and chunked transfer encoding', async () => {
  // 3,000 docs (~200 KB) as a bulk body; the count and one document's source prove every byte came through in
  // order. Sent in 997-byte writes (uWS hands them over in pieces of other sizes), and once chunked.
  let body = '';
  for (let i = 0; i < 3000; i++) body += `{"index":{"_id":"${i}"}}\n{"n":${i},"pad":"${'x'.repeat(i % 50)}"}\n`;
  const bytes = Buffer.from(body);
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 997) pieces.push(bytes.subarray(at, at + 997));
  const head = (extra: string): string => `POST /cut/_doc/_bulk?refresh=true HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n${extra}Connection: close\r\n\r\n`;
  const declared = await raw(s.esUrl, [head(`Content-Length: ${bytes.length}\r\n`), ...pieces], 30_000);
  assert.match(declared, /^HTTP\/1\.1 200 /);
  assert.match(declared, /"errors":false/);
  const chunked = pieces.map((p) => Buffer.concat([Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from('\r\n')]));
  const viaChunks = await raw(s.esUrl, [head('Transfer-Encoding: chunked\r\n'), ...chunked, '0\r\n\r\n'], 30_000);
  assert.match(viaChunks, /^HTTP\/1\.1 200 /);
  assert.match(viaChunks, /"errors":false/);
  const count = (await (await fetch(`${s.esUrl}/cut/_count`)).json()) as { count: number };
  assert.equal(count.count, 3000);
  const doc = (await (await fetch(`${s.esUrl}/cut/_doc/2999`)).json()) as { _source: unknown };
  assert.deepEqual(doc._source, { n: 2999, pad: 'x'.repeat(2999 % 50) });
});

test('an aborted upload does not crash the server', async () => {
  for (let i = 0; i < 20; i++) {
    await raw(s.esUrl, ['PUT /idx/_doc/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"a":'], 0, true);
  }
  // Every aborted connection is closed (awaited above); a request on a new connection is served after them.
  assert.equal((await fetch(`${s.esUrl}/`)).status, 200);
  assert.equal((await fetch(`${s.promUrl}/-/healthy`)).status, 200);
});

test('lifecycle endpoints work with --web.enable-lifecycle: reload, then quit stops the server', async () => {
  const life = await startServer({ services: ['metrics'], workers: 1, args: ['--web.enable-lifecycle'] });
  try {
    const r = await fetch(`${life.promUrl}/-/reload`, { method: 'POST' });
    assert.equal(r.status, 200);
    const q = await fetch(`${life.promUrl}/-/quit`, { method: 'PUT' });
    assert.equal(q.status, 200);
    assert.equal(await q.text(), 'Requesting termination... Goodbye!');
    assert.equal(await life.stop(), 0);
  } finally {
    await life.destroy();
  }
});

test('admin endpoints refuse with "admin APIs disabled" unless --web.enable-admin-api', async () => {
  for (const p of ['delete_series?match[]=up', 'clean_tombstones', 'snapshot']) {
    const res = await fetch(`${s.promUrl}/api/v1/admin/tsdb/${p}`, { method: 'POST' });
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), { status: 'error', errorType: 'unavailable', error: 'admin APIs disabled' });
  }
});
