/** The remote-write sender with a fake transport: ordering, batching, retry policy, relabelling, overflow. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/engine/scrape/config.ts';
import { fetchPost, RemoteWriteQueue, type PostFn } from '../../src/engine/remote/remote-write-queue.ts';
import { signV4 } from '../../src/engine/remote/sigv4.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeWriteRequest } from '../../src/engine/remote/remote-write-codec.ts';
import { formatSeries } from '../../src/engine/exposition/exposition.ts';
import type { IngestSample } from '../../src/engine/scrape/sample-sink.ts';

function queue(extra: string, post: PostFn, errors: string[] = []): RemoteWriteQueue {
  const cfg = loadConfig(`global: {external_labels: {dc: x}}\nremote_write:\n  - url: http://127.0.0.1:1/w\n${extra}`, '/p.yml');
  return new RemoteWriteQueue(cfg.remoteWrite[0], cfg.global.externalLabels, post, (m) => errors.push(m));
}

const s = (name: string, t: number, v = t): IngestSample => ({ labels: [{ name: '__name__', value: name }], t, v });

test('batches in order, adds external labels, applies write_relabel_configs', async () => {
  const got: IngestSample[] = [];
  const q = queue(`    write_relabel_configs: [{source_labels: [__name__], regex: secret, action: drop}]
    queue_config: {max_samples_per_send: 3, batch_send_deadline: 20ms}\n`, async (_u, body, headers) => {
    assert.equal(headers['Content-Encoding'], 'snappy');
    assert.equal(headers['X-Prometheus-Remote-Write-Version'], '0.1.0');
    got.push(...await decodeWriteRequest(body));
    return { status: 204, text: '' };
  });
  q.enqueue([s('a', 1), s('secret', 1), s('a', 2), s('b', 3), s('a', 4)]);
  await q.stop(2000);
  assert.deepEqual(got.map((x) => `${formatSeries(x.labels)}@${x.t}`), ['a{dc="x"}@1', 'a{dc="x"}@2', 'b{dc="x"}@3', 'a{dc="x"}@4']);
  assert.equal(q.stats.sent, 4);
});

test('5xx and network errors are retried with back-off; 4xx is not', async () => {
  let calls = 0;
  const errors: string[] = [];
  const q = queue('    queue_config: {max_samples_per_send: 10, batch_send_deadline: 10ms, min_backoff: 5ms, max_backoff: 10ms}\n', async () => {
    calls++;
    if (calls === 1) throw new Error('connect ECONNREFUSED');
    if (calls === 2) return { status: 500, text: 'oops' };
    return { status: 200, text: '' };
  }, errors);
  q.enqueue([s('a', 1)]);
  await q.stop(2000);
  assert.equal(calls, 3);
  assert.equal(q.stats.sent, 1);
  assert.equal(q.stats.retried, 2);
  assert.equal(errors.length, 2);

  let calls400 = 0;
  const q2 = queue('    queue_config: {batch_send_deadline: 10ms, min_backoff: 5ms}\n', async () => { calls400++; return { status: 400, text: 'out of order sample' }; });
  q2.enqueue([s('a', 1)]);
  await q2.stop(1000);
  assert.equal(calls400, 1);
  assert.equal(q2.stats.failed, 1);
});

test('429 is retried only with retry_on_http_429', async () => {
  let n = 0;
  const q = queue('    queue_config: {batch_send_deadline: 10ms, min_backoff: 5ms, retry_on_http_429: true}\n', async () => (++n < 3 ? { status: 429, text: '' } : { status: 204, text: '' }));
  q.enqueue([s('a', 1)]);
  await q.stop(2000);
  assert.equal(q.stats.sent, 1);
  assert.equal(n, 3);
});

test('the buffer is bounded: beyond capacity × max_shards the oldest samples are dropped and counted', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const got: number[] = [];
  const q = queue('    queue_config: {capacity: 2, max_shards: 2, max_samples_per_send: 1, batch_send_deadline: 5ms}\n', async (_u, body) => {
    await gate;
    for (const x of await decodeWriteRequest(body)) got.push(x.t);
    return { status: 204, text: '' };
  });
  q.enqueue([s('a', 1)]); // taken by the first (blocked) send
  q.enqueue([s('a', 2), s('a', 3), s('a', 4), s('a', 5), s('a', 6)]);
  assert.equal(q.stats.dropped, 1);
  release();
  await q.stop(2000);
  assert.deepEqual(got, [1, 3, 4, 5, 6]);
});

test('sigv4: each request is signed for service aps over exactly the headers and body that arrive; role_arn fails the send', async () => {
  const received: { headers: Record<string, string>; body: Uint8Array }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/workspaces/ws-1/api/v1/remote_write`;
  try {
    const cfgText = (extra: string) => `remote_write:\n  - url: ${url}\n    queue_config: {batch_send_deadline: 10ms}\n    sigv4: {region: us-east-1, access_key: AKID, secret_key: SECRET${extra}}\n`;
    const cfg = loadConfig(cfgText(''), '/p.yml');
    const q = new RemoteWriteQueue(cfg.remoteWrite[0], [], fetchPost, () => {});
    q.enqueue([s('a', 1)]);
    await q.stop(2000);
    assert.equal(received.length, 1);
    const { headers, body } = received[0];
    const m = /^AWS4-HMAC-SHA256 Credential=AKID\/(\d{8})\/us-east-1\/aps\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(headers.authorization);
    assert.ok(m, headers.authorization);
    assert.equal(m[1], headers['x-amz-date'].slice(0, 8));
    assert.deepEqual(m[2].split(';'), ['content-encoding', 'content-type', 'host', 'x-amz-date', 'x-prometheus-remote-write-version']);
    // Recompute from what arrived: the same signature means nothing was signed that the server does not see.
    const when = new Date(headers['x-amz-date'].replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
    const signed = Object.fromEntries(m[2].split(';').filter((h) => h !== 'host' && h !== 'x-amz-date').map((h) => [h, headers[h]]));
    const again = signV4({ method: 'POST', url, headers: signed, body }, 'us-east-1', 'aps', { accessKey: 'AKID', secretKey: 'SECRET', sessionToken: '' }, when);
    assert.equal(again.Authorization, headers.authorization);

    const errors: string[] = [];
    const cfg2 = loadConfig(cfgText(', role_arn: "arn:aws:iam::1:role/x"'), '/p.yml');
    const q2 = new RemoteWriteQueue(cfg2.remoteWrite[0], [], fetchPost, (e) => errors.push(e));
    q2.enqueue([s('a', 2)]);
    await q2.stop(2000);
    assert.equal(received.length, 1, 'nothing sent unsigned');
    assert.equal(q2.stats.failed, 1);
    assert.match(errors[0], /role_arn .* not supported/);
  } finally { server.close(); }
});
