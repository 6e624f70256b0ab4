/**
 * Scrapes of plain http targets read the response off the socket into the target's kept buffer
 * (src/engine/scrape/plain-http-get.ts): framing by Content-Length, chunks and the end of the connection,
 * wherever the reads split the bytes; gzip; interim responses; redirects; the body size limit; truncated and
 * malformed responses; the deadline.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createNetServer, type Socket } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { BodyBuffer } from '../../src/engine/scrape/body-buffer.ts';
import { ResponseReader } from '../../src/engine/scrape/plain-http-get.ts';
import { httpGet } from '../../src/engine/scrape/http-get.ts';

const CHUNKED = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nTransfer-Encoding: chunked\r\n\r\n'
  + '7;ext=1\r\nm{a="1"\r\n' + 'd\r\n} 1\nm{a="2"} \r\n' + '2\r\n2\n\r\n' + '0\r\nX-Trailer: t\r\n\r\n';
const CHUNKED_BODY = 'm{a="1"} 1\nm{a="2"} 2\n';

async function readAll(parts: Uint8Array[], into = new BodyBuffer(), limit = 0): Promise<{ body: string; status: number; contentType: string }> {
  const r = new ResponseReader(into, limit);
  for (const p of parts) r.consume(p, p.length);
  r.end();
  const res = await r.done;
  return { body: into.view().toString(), status: res.status, contentType: res.contentType };
}

test('a chunked response is read whole wherever the reads split it (every split point, and byte by byte)', async () => {
  const all = Buffer.from(CHUNKED);
  for (let i = 0; i <= all.length; i++) {
    const got = await readAll([all.subarray(0, i), all.subarray(i)]);
    assert.equal(got.body, CHUNKED_BODY, `split at ${i}`);
    assert.equal(got.status, 200);
    assert.equal(got.contentType, 'text/plain; version=0.0.4');
  }
  const bytes = [...all].map((c) => Uint8Array.of(c));
  assert.equal((await readAll(bytes)).body, CHUNKED_BODY);
});

test('Content-Length frames the body even if the connection stays open; an interim 100 response is skipped', async () => {
  const body = 'x 1\ny 2\n';
  const resp = Buffer.from(`HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}garbage after the body`);
  for (let i = 0; i <= resp.length; i++) {
    const into = new BodyBuffer();
    const r = new ResponseReader(into, 0);
    r.consume(resp.subarray(0, i), i);
    r.consume(resp.subarray(i), resp.length - i);
    await r.done; // no end(): the length said when the body was complete
    assert.equal(into.view().toString(), body, `split at ${i}`);
  }
});

test('a body larger than the kept buffer grows it; a body framed by the end of the connection', async () => {
  const into = new BodyBuffer();
  await readAll([Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nab')], into);
  const big = 'series_with_a_long_name{label="value"} 12345\n'.repeat(5000); // 225 KB
  const head = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';
  const chunks = [big.slice(0, 70_001), big.slice(70_001, 150_000), big.slice(150_000)].map((c) => `${c.length.toString(16)}\r\n${c}\r\n`).join('');
  const wire = Buffer.from(head + chunks + '0\r\n\r\n');
  const parts: Buffer[] = [];
  for (let i = 0; i < wire.length; i += 65_536) parts.push(wire.subarray(i, i + 65_536));
  assert.equal((await readAll(parts, into)).body, big);
  assert.ok(into.capacity >= big.length);
  assert.equal((await readAll([Buffer.from('HTTP/1.0 200 OK\r\n\r\nto the'), Buffer.from(' end\n')], into)).body, 'to the end\n');
});

test('truncated and malformed responses fail; the body size limit counts body bytes', async () => {
  const fails = async (wire: string, message: RegExp, limit = 0): Promise<void> => {
    await assert.rejects(readAll([Buffer.from(wire)], new BodyBuffer(), limit), message, JSON.stringify(wire));
  };
  await assert.rejects(readAll([Buffer.alloc(0)]), { message: 'EOF' }, 'nothing before the end');
  await fails('HTTP/1.1 200 OK\r\nContent-Len', /unexpected EOF/);
  await fails('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc', /unexpected EOF/);
  await fails('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n', /unexpected EOF/);
  await fails('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n', /malformed chunked encoding/);
  await fails('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n', /malformed chunked encoding/);
  await fails('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', /bad Content-Length/);
  await fails('SSH-2.0-OpenSSH\r\n\r\n', /malformed HTTP response/);
  await fails('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n0\r\n\r\n', /body size limit exceeded/, 5);
  assert.equal((await readAll([Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabcde')], new BodyBuffer(), 5)).body, 'abcde');
});

// Through httpGet against real servers.
const http = createHttpServer((req, res) => {
  if (req.url === '/gzip-chunked') {
    // No Content-Length: node writes the gzip bytes as chunks.
    const z = gzipSync('g 1\n'.repeat(20_000));
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' });
    for (let i = 0; i < z.length; i += 1000) res.write(z.subarray(i, i + 1000));
    res.end();
  } else if (req.url === '/moved') {
    res.writeHead(302, { Location: '/final?x=1' });
    res.end('moved');
  } else if (req.url === '/final?x=1') {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(`final ${req.headers['accept-encoding']} ${req.headers['user-agent']}\n`);
  } else if (req.url === '/stall') {
    res.writeHead(200, { 'Content-Length': '100' });
    res.write('part');
  } else { res.writeHead(404); res.end(); }
});
await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
const sockets = new Set<Socket>();
http.on('connection', (s: Socket) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
after(() => { for (const s of sockets) s.destroy(); http.close(); });

test('httpGet into a kept buffer: gzip in chunks, redirects followed or not, the deadline, a refused connection', async () => {
  const into = new BodyBuffer();
  const g = await httpGet(`${base}/gzip-chunked`, {}, 5000, { into });
  assert.equal(g.body.toString(), 'g 1\n'.repeat(20_000));
  const f = await httpGet(`${base}/moved`, { 'User-Agent': 'Prometheus/2.42.0' }, 5000, { into });
  assert.equal(f.status, 200);
  assert.equal(f.body.toString(), 'final gzip Prometheus/2.42.0\n');
  const m = await httpGet(`${base}/moved`, {}, 5000, { into, followRedirects: false });
  assert.equal(m.status, 302);
  assert.equal(m.body.toString(), 'moved');
  await assert.rejects(httpGet(`${base}/stall`, {}, 200, { into }), { message: `Get "${base}/stall": context deadline exceeded` });
  await assert.rejects(httpGet(`${base}/gzip-chunked`, {}, 5000, { into, maxBodyBytes: 1000 }), { message: 'body size limit exceeded' });
  const refused = createNetServer();
  await new Promise<void>((r) => refused.listen(0, '127.0.0.1', r));
  const port = (refused.address() as { port: number }).port;
  await new Promise<void>((r) => refused.close(() => r()));
  await assert.rejects(httpGet(`http://127.0.0.1:${port}/metrics`, {}, 5000, { into }),
    { message: `Get "http://127.0.0.1:${port}/metrics": dial tcp 127.0.0.1:${port}: connect: connection refused` });
});
