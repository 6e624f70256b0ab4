/**
 * A reply body in pieces (a long range query's answer) goes out through uWS piece by piece, never joined: the
 * bytes, their length and their gzip must be those of the joined body, and a client leaving mid-body must leave
 * the server answering and the pieces let go.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import zlib from 'node:zlib';
import { startHttpServer, type HttpServer, type HttpResponse } from '../../src/server/http.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Pieces of uneven sizes (a few bytes to 8 MB, some empty) whose bytes differ from piece to piece. */
function pieces(total: number, seed: number): Buffer[] {
  const out: Buffer[] = [];
  const sizes = [5, 0, 3_000, 8 * 1024 * 1024, 1, 70_000, 0, 250_000];
  for (let at = 0, k = 0; at < total; k++) {
    const size = Math.min(total - at, sizes[k % sizes.length]);
    const p = Buffer.allocUnsafe(size);
    for (let i = 0; i < size; i++) p[i] = 48 + ((at + i) * 7 + seed + (i >> 9)) % 75;
    out.push(p);
    at += size;
  }
  return out;
}

const LARGE = pieces(24 * 1024 * 1024, 1);
const SMALL = pieces(9_000, 2);
/** Over the size where pieces are written one by one, but taken by the socket at once. */
const MEDIUM = pieces(400_000, 4);
/** Weak references to the pieces of the body a client leaves mid-way (made fresh for that request). */
let leftBehind: WeakRef<Buffer>[] = [];

let server: HttpServer;
before(async () => {
  server = await startHttpServer({
    host: '127.0.0.1', port: 0, maxBodyBytes: 1 << 20, compressResponses: true,
    tooLarge: () => ({ status: 413, body: 'too large' }),
    badBody: (reason) => ({ status: 400, body: reason }),
    internalError: () => ({ status: 500, body: '{"error":"internal"}' }),
    handler: (req): HttpResponse => {
      if (req.path === '/large') return { status: 200, headers: { 'content-type': 'application/json' }, body: LARGE };
      if (req.path === '/small') return { status: 200, body: SMALL };
      if (req.path === '/medium') return { status: 200, body: MEDIUM };
      if (req.path === '/left') {
        const body = pieces(48 * 1024 * 1024, 3);
        leftBehind = body.map((p) => new WeakRef(p));
        return { status: 200, body };
      }
      if (req.path === '/throws') throw new Error('boom');
      return { status: 404, body: 'no such path\n' };
    },
  });
});
after(async () => { await server.close(); });

interface Got { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }

/** The raw reply (no decompression), read whole. */
function get(path: string, method = 'GET', headers: Record<string, string> = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

test('a body in pieces arrives byte for byte, with the joined length', async () => {
  const whole = Buffer.concat(LARGE);
  for (const path of ['/large', '/large']) { // twice: the connection stays usable after a streamed body
    const r = await get(path);
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(Number(r.headers['content-length']), whole.length);
    assert.equal(r.headers['transfer-encoding'], undefined);
    assert.ok(r.body.equals(whole));
  }
  // Written whole at once: counted out of flight once, so the listener can still close (the after hook).
  const medium = await get('/medium');
  assert.equal(Number(medium.headers['content-length']), 400_000);
  assert.ok(medium.body.equals(Buffer.concat(MEDIUM)));
  assert.equal(server.inFlight(), 0);
  const small = await get('/small');
  assert.equal(Number(small.headers['content-length']), 9_000);
  assert.ok(small.body.equals(Buffer.concat(SMALL)));
});

test('gzipped, the pieces give one gzip stream of the joined body, its length declared', async () => {
  for (const [path, parts] of [['/large', LARGE], ['/small', SMALL]] as const) {
    const r = await get(path, 'GET', { 'accept-encoding': 'gzip' });
    assert.equal(r.headers['content-encoding'], 'gzip', path);
    assert.equal(Number(r.headers['content-length']), r.body.length, path);
    assert.ok(zlib.gunzipSync(r.body).equals(Buffer.concat(parts)), path);
  }
});

test('HEAD of a body in pieces: its length, no body; error replies as before', async () => {
  const head = await get('/large', 'HEAD');
  assert.equal(head.status, 200);
  assert.equal(Number(head.headers['content-length']), Buffer.concat(LARGE).length);
  assert.equal(head.body.length, 0);
  const missing = await get('/nope');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.toString(), 'no such path\n');
  const thrown = await get('/throws');
  assert.equal(thrown.status, 500);
  assert.equal(thrown.body.toString(), '{"error":"internal"}');
});

test('a client leaving mid-body leaves the server answering, and the pieces are let go', async () => {
  // 48 MB is more than the kernel's socket buffers take: the server is waiting on the socket when the client goes.
  await new Promise<void>((resolve, reject) => {
    const sock = connect(server.port, '127.0.0.1');
    sock.on('error', reject);
    sock.on('connect', () => sock.write('GET /left HTTP/1.1\r\nhost: x\r\n\r\n'));
    sock.once('data', () => { sock.destroy(); resolve(); });
  });
  // The abort reaches uWS on its next turn of the event loop.
  while (server.inFlight() > 0) await new Promise((r) => setImmediate(r));
  assert.ok(leftBehind.length > 10);
  gc();
  assert.equal(leftBehind.filter((w) => w.deref() !== undefined).length, 0, 'pieces still held after the client left');
  const r = await get('/large');
  assert.ok(r.body.equals(Buffer.concat(LARGE)));
});
