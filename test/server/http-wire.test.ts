/**
 * What every listener does with the HTTP details real clients use: kept-alive connections across every method
 * (the JS client's ping() is a HEAD followed by the next request on the same socket) and compressed request
 * bodies (gzip from the ES clients, Logstash and Beats), with the size limit on the inflated bytes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { deflateRawSync, deflateSync, gunzipSync, gzipSync, inflateRawSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
before(async () => { s = await startServer({ workers: 1 }); });
after(async () => { await s.destroy(); });

interface Reply { status: number; body: string; reused: boolean; headers: http.IncomingHttpHeaders }

function request(agent: http.Agent, url: string, method: string, body?: Buffer | string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const r = http.request(url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString(), reused: r.reusedSocket, headers: res.headers }));
    });
    r.on('error', reject);
    r.end(body);
  });
}

const listeners = (): [string, string, string][] => [
  ['documents', s.esUrl, '/'],
  ['metrics', s.promUrl, '/api/v1/status/buildinfo'],
  ['workflow', s.flowUrl, '/health'],
];

test('every method keeps the connection usable on all three listeners', async () => {
  for (const [api, base, path] of listeners()) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const sequence = ['HEAD', 'GET', 'HEAD', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'HEAD', 'GET'];
      const replies: Reply[] = [];
      for (const m of sequence) replies.push(await request(agent, base + path, m));
      assert.ok(replies.slice(1).every((r) => r.reused), `${api}: one socket for the whole sequence`);
      assert.equal(replies[0].body, '', `${api}: HEAD has no body`);
      assert.equal(Number(replies[0].headers['content-length']), Buffer.byteLength(replies[1].body), `${api}: HEAD reports GET's length`);
      assert.equal(replies.at(-1)!.status, 200, `${api}: still answering after the sequence`);
    } finally {
      agent.destroy();
    }
  }
});

const bulkLines = (n: number): string =>
  Array.from({ length: n }, (_, i) => `{"index":{"_index":"gz","_type":"_doc","_id":"${i}"}}\n{"n":${i},"t":"event ${i}"}\n`).join('');

test('gzip and deflate request bodies are inflated on the documents API (bulk, document writes, searches)', async () => {
  const agent = new http.Agent({ keepAlive: true });
  try {
    const ndjson = { 'content-type': 'application/x-ndjson' };
    const bulk = await request(agent, `${s.esUrl}/_bulk?refresh=true`, 'POST', gzipSync(bulkLines(50)), { ...ndjson, 'content-encoding': 'gzip' });
    assert.equal(bulk.status, 200, bulk.body);
    assert.equal(JSON.parse(bulk.body).errors, false);
    const json = { 'content-type': 'application/json' };
    const put = await request(agent, `${s.esUrl}/gz/_doc/z?refresh=true`, 'PUT', deflateSync('{"n":1000}'), { ...json, 'content-encoding': 'deflate' });
    assert.equal(put.status, 201, put.body);
    const raw = await request(agent, `${s.esUrl}/gz/_doc/r?refresh=true`, 'PUT', deflateRawSync('{"n":1001}'), { ...json, 'content-encoding': 'deflate' });
    assert.equal(raw.status, 201, raw.body);
    const search = await request(agent, `${s.esUrl}/gz/_search`, 'POST', gzipSync('{"query":{"range":{"n":{"gte":1000}}}}'), { ...json, 'content-encoding': 'x-gzip' });
    assert.equal(JSON.parse(search.body).hits.total, 2);
    const count = JSON.parse((await request(agent, `${s.esUrl}/gz/_count`, 'GET')).body);
    assert.equal(count.count, 52);
  } finally {
    agent.destroy();
  }
});

test('a body that inflates past the limit is 413 and a corrupt one 400, with each API\'s envelope and nothing stored', async () => {
  const agent = new http.Agent({ keepAlive: true });
  try {
    // 101 MiB of one repeated bulk line inflates past the documents API's 100 MiB limit from about 200 KB.
    const line = Buffer.from('{"index":{"_index":"bomb","_type":"_doc"}}\n{"a":1}\n');
    const big = Buffer.alloc(101 * 1024 * 1024);
    for (let o = 0; o < big.length; o += line.length) line.copy(big, o);
    const bomb = await request(agent, `${s.esUrl}/_bulk`, 'POST', gzipSync(big), { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' });
    assert.equal(bomb.status, 413);
    assert.equal(JSON.parse(bomb.body).error.type, 'content_too_long_exception');
    const corrupt = Buffer.from(gzipSync('{"a":1}'));
    corrupt[corrupt.length - 6] ^= 0xff; // the CRC no longer matches
    const bad = await request(agent, `${s.esUrl}/bomb/_doc/1`, 'PUT', corrupt, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.body).error.type, 'parse_exception');
    assert.equal((await request(agent, `${s.esUrl}/bomb`, 'HEAD')).status, 404, 'no index was created');

    const flowBomb = await request(agent, `${s.flowUrl}/livestream/channels`, 'POST', gzipSync(Buffer.alloc(2 * 1024 * 1024, 32)), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    assert.equal(flowBomb.status, 413);
    const promBad = await request(agent, `${s.promUrl}/api/v1/query`, 'POST', Buffer.from('not gzip'), { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' });
    assert.equal(promBad.status, 400);
    assert.equal(JSON.parse(promBad.body).errorType, 'bad_data');
  } finally {
    agent.destroy();
  }
});

test('gzip bodies reach the metrics and workflow APIs inflated', async () => {
  const agent = new http.Agent({ keepAlive: true });
  try {
    const q = await request(agent, `${s.promUrl}/api/v1/query`, 'POST', gzipSync('query=1%2B2&time=1000'), { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' });
    assert.equal(q.status, 200, q.body);
    assert.deepEqual(JSON.parse(q.body).data, { resultType: 'scalar', result: [1000, '3'] });
    const channel = { businessId: 7, channelId: 'gz', name: 'Compressed', liveStatus: 'live', startTime: null };
    const up = await request(agent, `${s.flowUrl}/livestream/channels`, 'POST', gzipSync(JSON.stringify(channel)), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    assert.equal(up.status, 200, up.body);
    const list = JSON.parse((await request(agent, `${s.flowUrl}/livestream/channels/businessId/7`, 'GET')).body);
    assert.ok(JSON.stringify(list).includes('Compressed'), JSON.stringify(list));
  } finally {
    agent.destroy();
  }
});

test('documents API replies are gzipped for clients that accept it (http.compression, on by default as in 6.8)', async () => {
  const agent = new http.Agent({ keepAlive: true });
  try {
    const big = JSON.stringify({ text: 'x'.repeat(5000) });
    assert.equal((await request(agent, `${s.esUrl}/gzr/_doc/1?refresh=true`, 'PUT', big, { 'content-type': 'application/json' })).status, 201);
    const gzipped = (path: string) => new Promise<{ enc: string | undefined; vary: string | undefined; body: Buffer }>((resolve, reject) => {
      const r = http.request(`${s.esUrl}${path}`, { agent, headers: { 'accept-encoding': 'gzip, deflate' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ enc: res.headers['content-encoding'], vary: res.headers.vary, body: Buffer.concat(chunks) }));
      });
      r.on('error', reject);
      r.end();
    });
    const raw = await gzipped('/gzr/_doc/1');
    assert.equal(raw.enc, 'gzip');
    assert.equal(raw.vary, 'accept-encoding');
    assert.equal(JSON.parse(gunzipSync(raw.body).toString())._source.text.length, 5000);
    // Past 64 KB a reply is gzipped off the event loop; the bytes are as valid.
    assert.equal((await request(agent, `${s.esUrl}/gzr/_doc/2?refresh=true`, 'PUT', JSON.stringify({ text: 'y'.repeat(100_000) }), { 'content-type': 'application/json' })).status, 201);
    const large = await gzipped('/gzr/_doc/2');
    assert.equal(large.enc, 'gzip');
    assert.equal(JSON.parse(gunzipSync(large.body).toString())._source.text.length, 100_000);
    // Past 8 MB it is compressed in pieces on the thread pool (codec/gzip-pieces.ts): still one gzip member.
    const huge = randomBytes(4_500_000).toString('hex');
    assert.equal((await request(agent, `${s.esUrl}/gzr/_doc/3?refresh=true`, 'PUT', JSON.stringify({ text: huge }), { 'content-type': 'application/json' })).status, 201);
    const inPieces = await gzipped('/gzr/_doc/3');
    assert.equal(inPieces.enc, 'gzip');
    assert.equal(JSON.parse(inflateRawSync(inPieces.body.subarray(10, inPieces.body.length - 8)).toString())._source.text, huge);
    assert.equal(JSON.parse(gunzipSync(inPieces.body).toString())._source.text, huge);
    const plain = await request(agent, `${s.esUrl}/gzr/_doc/1`, 'GET');
    assert.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding, no compression');
    const small = await request(agent, `${s.esUrl}/`, 'GET', undefined, { 'accept-encoding': 'gzip' });
    assert.equal(small.headers['content-encoding'], undefined, 'small bodies go as they are');
    const refused = await request(agent, `${s.esUrl}/gzr/_doc/1`, 'GET', undefined, { 'accept-encoding': 'gzip;q=0' });
    assert.equal(refused.headers['content-encoding'], undefined);
  } finally {
    agent.destroy();
  }
});
