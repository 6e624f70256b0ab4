import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, startServer } from '../support/server.ts';
import { waitFor } from '../support/wait-for.ts';
import badFlags from './cases/bad-flags.json' with { type: 'json' };

const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 30_000 });

for (const c of badFlags) {
  test(`bad command line ${c.args.join(' ')} exits 2 naming the flag`, () => {
    const r = run(c.args);
    assert.equal(r.status, 2, r.stderr);
    assert.ok(r.stderr.includes(c.stderr), `stderr ${JSON.stringify(r.stderr)} lacks ${JSON.stringify(c.stderr)}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, 'one-line message');
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
  });
}

async function waitExit(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try { process.kill(pid, 0); } catch { return true; }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

test('V8 and per-process options on node\'s command line (--max-old-space-size) start every thread', async () => {
  // Worker threads refuse such options when they inherit them; the node must start its shard workers, query
  // thread and workflow partition anyway (the options apply to every thread of the process).
  const s = await startServer({ nodeArgs: ['--max-old-space-size=4096', '--stack-trace-limit=50', '--title=tessera-test'] });
  try {
    assert.equal((await fetch(`${s.esUrl}/_cluster/health`)).status, 200);
    const q = await (await fetch(`${s.promUrl}/api/v1/query?query=1%2B1`)).json() as { data: { result: unknown[] } };
    assert.deepEqual(q.data.result.slice(1), ['2']);
    assert.equal((await fetch(`${s.flowUrl}/workflow/manage?businessId=1`)).status, 200);
  } finally {
    await s.destroy();
  }
});

test('-d -p: starts in the background once ready, writes the pid file, SIGTERM exits cleanly and removes it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-cli-'));
  const pidfile = join(dir, 'tessera.pid');
  const [es, prom, flow] = [await freePort(), await freePort(), await freePort()];
  const r = run(['-d', '-p', pidfile, '--path.data', join(dir, 'data'), '--http.port', String(es),
    '--web.listen-address', `127.0.0.1:${prom}`, '--workflow.port', String(flow), '--workers', '1']);
  assert.equal(r.status, 0, r.stderr);
  const pid = Number(readFileSync(pidfile, 'utf8').trim());
  assert.ok(pid > 0);
  try {
    assert.equal((await fetch(`http://127.0.0.1:${prom}/-/ready`)).status, 200, 'ready when the launcher returns');
    assert.equal((await fetch(`http://127.0.0.1:${es}/`)).status, 200);
    process.kill(pid, 'SIGTERM');
    assert.ok(await waitExit(pid, 10_000), 'exits within 10 s of SIGTERM');
    assert.equal(existsSync(pidfile), false, 'pid file removed on clean exit');
    assert.equal(existsSync(join(dir, 'data', 'tessera.lock')), false, 'lock released');
  } finally {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    rmSync(dir, { recursive: true, force: true });
  }
});

test('-d reports a start-up failure with a non-zero exit and the reason', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-cli-'));
  const blocker = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => blocker.once('listening', r));
  const busy = (blocker.address() as { port: number }).port;
  try {
    const r = run(['-d', '--path.data', dir, '--http.port', String(busy), '--services', 'documents', '--workers', '1']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, new RegExp(`start-up failed: cannot listen on 127.0.0.1:${busy}`));
  } finally {
    blocker.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a second server on the same data directory is refused', async () => {
  const first = await startServer({ services: ['documents'], workers: 1 });
  try {
    const r = run(['--path.data', first.dataDir, '--http.port', '0', '--services', 'documents', '--workers', '1']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /data directory .* is in use by another process/);
    assert.equal((await fetch(`${first.esUrl}/`)).status, 200, 'the first keeps serving');
  } finally {
    await first.destroy();
  }
});

test('a lock left by a killed server is taken over', async () => {
  const first = await startServer({ services: ['documents'], workers: 1 });
  await first.kill9();
  const second = await first.restart();
  try {
    assert.equal((await fetch(`${second.esUrl}/`)).status, 200);
  } finally {
    await second.destroy();
  }
});

test('SIGTERM answers an in-flight request before exiting with 0', async () => {
  const s = await startServer({ services: ['metrics'], workers: 1 });
  const port = Number(new URL(s.promUrl).port);
  const sock = connect(port, '127.0.0.1');
  await new Promise((r) => sock.once('connect', r));
  let reply = '';
  let onData = (): void => {};
  sock.on('data', (d) => { reply += d; onData(); });
  const closed = new Promise((r) => sock.once('close', r));
  // One write: a complete GET, then the headers and half the body of a POST. The server parses pipelined
  // requests of one read together, so when the GET's reply arrives the POST is in flight (no sleep needed).
  sock.write('GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\nPOST /-/reload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345');
  await new Promise<void>((r) => { onData = () => { if (/^HTTP\/1\.1 200 [\s\S]*Healthy/.test(reply)) r(); }; onData(); });
  const exitCode = s.stop();
  // The server has begun its graceful stop once its listening socket is closed: new connections are refused.
  await waitFor('the listener closed by SIGTERM', () => new Promise<boolean>((r) => {
    const probe = connect(port, '127.0.0.1');
    probe.once('connect', () => { probe.destroy(); r(false); });
    probe.once('error', () => r(true));
  }), 10_000);
  sock.write('67890');
  await closed;
  assert.match(reply, /^HTTP\/1\.1 200 [\s\S]*HTTP\/1\.1 403 /, 'the request that was mid-upload at SIGTERM still got its answer');
  assert.equal(await exitCode, 0);
  await s.destroy();
});
