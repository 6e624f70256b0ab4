/**
 * Issue 16 §5: a webhook action must not reach the node's own localhost-only APIs or the private network
 * unless `--workflow.webhook.allow-private-targets` says so, and must not read an unbounded response.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { A, E, channels, client, event, save, scenario, startFlow, workflow, type Flow } from '../helpers.ts';
import { startServer } from '../../support/server.ts';
import { nonPublicReason } from '../../../src/engine/workflow/webhook-target.ts';

const open: { close(): Promise<unknown> }[] = [];
after(async () => { for (const o of open) await o.close(); });

/** A loopback receiver: counts calls; `endless` replies 200 and then never ends its body. */
async function receiver(endless: boolean): Promise<{ url: string; calls: () => number }> {
  let calls = 0;
  const srv: Server = createServer((req, res) => {
    calls++;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      if (!endless) { res.end('{}'); return; }
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const pump = (): void => { while (!res.destroyed && res.write(chunk)); if (!res.destroyed) res.once('drain', pump); };
      pump();
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  open.push({ close: () => new Promise((r) => { srv.closeAllConnections(); srv.close(() => r(undefined)); }) });
  return { url: `http://127.0.0.1:${(srv.address() as { port: number }).port}/hook`, calls: () => calls };
}

async function runHook(f: Flow, url: string): Promise<{ status: string; attempt: number; runStatus: string }> {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  const id = await save(f, workflow(b, [E('ch1', 'submit'), A('block-a1', { action: 'webhook', actionValue: { url } }, ['path-1'])]));
  await event(f, { event: 'submit', channel_id: 'ch1', business_id: b, contact_id: 'c1' });
  await f.clock({ advance: 60_000 });
  const log = (await f.api('GET', `/workflow/actions?workflowId=${id}`)).body.data as { status: string; attempt: number }[];
  const runs = (await f.api('GET', `/workflow/manage/${id}/runs`)).body.data as { status: string }[];
  return { status: log[0].status, attempt: log[0].attempt, runStatus: runs[0].status };
}

test('a webhook to a loopback address is refused without the setting, once, and the target sees nothing', async () => {
  // Without the setting startFlow passes.
  const server = await startServer({ services: ['workflow'], args: ['--workflow.test-clock'] });
  open.push({ close: () => server.destroy() });
  const f = client(server);
  const hook = await receiver(false);
  const r = await runHook(f, hook.url);
  assert.deepEqual(r, { status: 'failed', attempt: 1, runStatus: 'failed' });
  assert.equal(hook.calls(), 0);
  const named = await runHook(f, hook.url.replace('127.0.0.1', 'localhost'));
  assert.equal(named.status, 'failed');
  assert.equal(hook.calls(), 0);
});

test('a webhook reads at most 1 MB of the response: an endless reply still completes the action', async () => {
  const f = await startFlow();
  open.push({ close: () => f.server.destroy() });
  const hook = await receiver(true);
  const r = await runHook(f, hook.url);
  assert.deepEqual(r, { status: 'succeeded', attempt: 1, runStatus: 'completed' });
});

test('address classes: loopback, private, link-local, CGNAT, unspecified and multicast are not public', () => {
  const f = (a: string, want: string | null): void => assert.equal(nonPublicReason(a), want, a);
  f('127.0.0.1', 'loopback'); f('::1', 'loopback'); f('::ffff:127.0.0.1', 'loopback');
  f('10.1.2.3', 'private'); f('172.16.0.1', 'private'); f('172.31.255.255', 'private'); f('192.168.1.1', 'private');
  f('100.64.0.1', 'private'); f('fd00::1', 'private'); f('fc00::1', 'private');
  f('169.254.169.254', 'link-local'); f('fe80::1', 'link-local');
  f('0.0.0.0', 'unspecified'); f('::', 'unspecified'); f('224.0.0.1', 'multicast or reserved'); f('ff02::1', 'multicast');
  f('8.8.8.8', null); f('172.32.0.1', null); f('2001:4860:4860::8888', null); f('100.128.0.1', null);
});
