/**
 * Durable inbound events: autocannon POSTs `play` events to /rest/livestream/event for 10,000 contacts
 * against a workflow Event → Rule → Action (tag), and reports acknowledged (WAL-fsynced and LMDB-committed)
 * events/s and p99 latency. Baselines in the same run: a bare uWebSockets.js server answering a fixed body,
 * and `GET /health` (one round trip to the workflow worker, no WAL). Afterwards it checks that the action
 * log is complete (one run and one tag action per acknowledged event). Tessera is pinned to CPU 0 and
 * autocannon runs on CPU 1; no pipelining.
 *
 *   node --import tsx loadtest/workflow-events.ts [seconds=8] [connections=64]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort, load, spawnPinned, table, type LoadResult } from './support/run.ts';

const seconds = Math.min(Number(process.argv[2] ?? 8), 10);
const connections = Number(process.argv[3] ?? 64);
const CONTACTS = 10_000;
const here = fileURLToPath(new URL('.', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tessera-wf-load-'));
const [flowPort, uwsPort] = await Promise.all([freePort(), freePort()]);
const base = `http://127.0.0.1:${flowPort}`;

const tessera = await spawnPinned(0, join(here, '../bin/tessera'), [
  '--path.data', join(dir, 'data'), '--services', 'workflow', '--workflow.port', String(flowPort), '--log.level', 'warn',
]);
writeFileSync(join(dir, 'body.json'), JSON.stringify({ success: true, error: '', data: { eventId: 'x', duplicate: false, runsStarted: [], entryRejected: [] } }));
const bareUws = await spawnPinned(0, join(here, 'support/bare-servers.ts'), ['uws', String(uwsPort), join(dir, 'body.json')]);

const post = async (path: string, body: unknown): Promise<any> => {
  const r = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const j = await r.json() as { success: boolean; error: string; data: any };
  if (!j.success) throw new Error(`${path}: ${j.error}`);
  return j.data;
};

async function events(): Promise<LoadResult & { ok: number }> {
  let n = 0;
  const r = await autocannon({
    url: base, duration: seconds, connections, pipelining: 1,
    requests: [{
      method: 'POST', path: '/rest/livestream/event', headers: { 'content-type': 'application/json' },
      setupRequest: (req: any) => ({ ...req, body: JSON.stringify({ event: 'play', channel_id: 'ch1', business_id: 170, contact_id: `c${n++ % CONTACTS}`, play_type: 'live' }) }),
    }],
  });
  return { name: 'tessera POST /rest/livestream/event (durable)', reqPerSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, errors: r.errors, non2xx: r.non2xx, ok: r['2xx'] };
}

try {
  await post('/livestream/channels', { businessId: 170, channelId: 'ch1', name: 'load', liveStatus: 'live', startTime: null });
  const wf = await post('/workflow/manage', {
    version: 1, businessId: 170, title: 'load', enable: true, status: 1, oneOff: false, workflowElements: [
      { displayId: 'e1', type: 'Event', incomings: '[]', outgoings: '["p1"]', properties: [{ name: 'event', operation: 'in', value: 'livestream' }, { name: 'eventValue', operation: 'in', value: 'livestream-play-ch1' }] },
      { displayId: 'r1', type: 'Rule', incomings: '["p1"]', outgoings: '["p2"]', properties: [{ name: 'livestream_rule_playcount_ch1', operation: 'greaterThanOrEqual', value: '1' }] },
      { displayId: 'a1', type: 'Action', incomings: '["p2"]', outgoings: '[]', properties: [], extensions: '{"action":"tag","actionValue":"viewer","repeat":true}' },
    ],
  });
  const rows: LoadResult[] = [];
  rows.push(await load('bare uWebSockets.js (fixed body)', `http://127.0.0.1:${uwsPort}/`, { seconds: 3, connections }));
  rows.push(await load('tessera GET /health (worker round trip)', `${base}/health`, { seconds: 3, connections }));
  const ev = await events();
  rows.push(ev);
  console.log(table(rows, rows[0]));
  // autocannon stops counting at the deadline while up to `connections` requests are still being answered:
  // wait until the server is quiet, then every acknowledged event must have its run and its action.
  let stats: any = null;
  for (let prev = -1; ; prev = stats.entered) {
    stats = (await (await fetch(`${base}/workflow/manage/${wf.id}/statistics`)).json() as { data: any }).data;
    if (stats.entered === prev) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const actions = await (await fetch(`${base}/workflow/actions?workflowId=${wf.id}&status=succeeded`)).json() as { data: unknown[] };
  const complete = stats.entered >= ev.ok && stats.entered - ev.ok <= connections && stats.completed === stats.entered && actions.data.length === stats.entered;
  console.log(`\nacknowledged (counted) events: ${ev.ok}; runs entered: ${stats.entered} (≤ ${connections} answered after the deadline); ` +
    `completed: ${stats.completed}; succeeded tag actions: ${actions.data.length}; action log complete: ${complete}`);
  console.log(`durable events/s: ${Math.round(ev.reqPerSec)} (target ≥ 20,000), p99 ${ev.p99Ms} ms`);
} finally {
  for (const c of [tessera, bareUws]) c.kill('SIGTERM');
  setTimeout(() => rmSync(dir, { recursive: true, force: true }), 1500);
}
