/**
 * Issue 16 §2: an upload far past the body limit is answered 413, not reset. The body is read and dropped
 * (no memory kept) until it ends, since uWS resets a connection answered mid-body and the reset makes the
 * client's kernel discard the reply. (A Content-Length of 10 digits or more, 1 GB and up, is refused by
 * uWS's own parser before any of our code runs; it closes the connection.)
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startServer, type TestServer } from '../support/server.ts';

let srv: TestServer;
before(async () => { srv = await startServer({ services: ['workflow'], workers: 1 }); });
after(async () => { await srv?.destroy(); });

/** Sends `declared` bytes of body as fast as the server takes them; resolves with the status line it got. */
function upload(base: string, path: string, declared: number): Promise<{ statusLine: string; sentBytes: number; ending: string }> {
  const u = new URL(base);
  return new Promise((resolve) => {
    const sock = connect(Number(u.port), '127.0.0.1');
    let got = '', sentBytes = 0, finished = false;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const finish = (ending: string): void => {
      if (finished) return;
      finished = true;
      sock.destroy();
      resolve({ statusLine: got.split('\r\n')[0], sentBytes, ending });
    };
    sock.on('data', (d) => { got += d; if (got.includes('\r\n\r\n')) finish('reply'); });
    sock.on('error', (e: NodeJS.ErrnoException) => finish(`error ${e.code}`));
    sock.on('close', () => finish('closed'));
    sock.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
    const pump = (): void => {
      while (!finished && sentBytes < declared) {
        sentBytes += chunk.length;
        if (!sock.write(chunk)) { sock.once('drain', pump); return; }
      }
    };
    pump();
  });
}

test('a 64 MB upload to the 1 MB workflow API gets its 413', async () => {
  const r = await upload(srv.flowUrl, '/workflow/manage', 64 * 1024 * 1024);
  assert.equal(r.ending, 'reply', `connection ended (${r.ending}) after ${r.sentBytes} bytes without a reply`);
  assert.equal(r.statusLine, 'HTTP/1.1 413 Payload Too Large');
});

/** Sends only the request head declaring `declared` body bytes; resolves with what came back before the close. */
function declareOnly(base: string, declared: string): Promise<{ statusLine: string; ending: string }> {
  const u = new URL(base);
  return new Promise((resolve) => {
    const sock = connect(Number(u.port), '127.0.0.1');
    let got = '', finished = false;
    const finish = (ending: string): void => {
      if (finished) return;
      finished = true;
      sock.destroy();
      resolve({ statusLine: got.split('\r\n')[0], ending });
    };
    sock.on('data', (d) => { got += d; if (got.includes('\r\n\r\n')) finish('reply'); });
    sock.on('error', (e: NodeJS.ErrnoException) => finish(`error ${e.code}`));
    sock.on('close', () => finish('closed'));
    sock.write(`POST /workflow/manage HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n{}`);
  });
}

// The known limitation of docs/benchmarks.md "Reliability under overload": uWS's parser takes a Content-Length
// of at most 9 digits and closes the connection on a longer one before any handler runs; no option of
// uWebSockets.js reaches that check. Should an upgrade answer it, this test says so.
test('the largest Content-Length uWS parses gets the 413; one digit more is closed by uWS without a reply', async () => {
  const nine = await declareOnly(srv.flowUrl, '999999999');
  assert.equal(nine.ending, 'reply');
  assert.equal(nine.statusLine, 'HTTP/1.1 413 Payload Too Large');
  const ten = await declareOnly(srv.flowUrl, '1000000000');
  assert.deepEqual(ten, { statusLine: '', ending: 'closed' });
});
