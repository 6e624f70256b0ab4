/**
 * Workflows at scale (issue 15), end to end over HTTP on 127.0.0.1. The workflow is the issue's: Event
 * `livestream-submit-ch1` → countdown 1 h before ch1's start (30 days out) → tag. Tessera runs unpinned
 * (its HTTP thread, engine threads and LMDB writer share both cores) with the test clock, on a fresh data directory.
 *
 *   events [contacts=100000] [connections=64] [maxSeconds=30]
 *     `contacts` distinct contacts each POST one submit to /rest/livestream/event (autocannon, keep-alive,
 *     no pipelining). Prints durable events/s (each acknowledged after its LMDB commit), p50/p99 and the tail
 *     (p75 … max), and checks that every acknowledged event entered a run now waiting on its countdown; then
 *     the server's CPU per event by thread, and its commits (events per commit, time to durable, LMDB's
 *     writing and syncing time).
 *   scale [contacts=1000000] [batch=1000]
 *     Loads `contacts` pending countdowns through /rest/livestream/events, then prints the server's anonymous
 *     resident memory (RssAnon of /proc/PID/status), kills it with SIGKILL, restarts it and prints the time
 *     until statistics answer and RssAnon after the restart, then moves the test clock past the fire time and
 *     checks that every countdown fired exactly once and on time (tags executed = runs entered, none late).
 *
 *   node --import tsx loadtest/workflow-scale.ts events
 *   node --import tsx loadtest/workflow-scale.ts scale
 *
 * Flags after the mode's numbers are passed to Tessera (e.g. `--workflow.partitions 1` for a comparison).
 * Profiles: TESSERA_NODE_FLAGS='--cpu-prof --cpu-prof-dir=DIR' TESSERA_STOP=SIGTERM (stops the server in order,
 * so each thread writes its profile).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort } from './support/run.ts';

const H = 3_600_000;
const SETTLE_MS = 15_000;
const DAY = 24 * H;
const T0 = 1_700_000_000_000;
const mode = process.argv[2] ?? 'events';
const nums = process.argv.slice(3).filter((a) => /^\d+$/.test(a)).map(Number);
const extra = process.argv.slice(3).filter((a, i, all) => !/^\d+$/.test(a) || (i > 0 && all[i - 1].startsWith('--')));
/** Node flags for the server under load (e.g. `--perf-basic-prof` for perf), which refuses some in NODE_OPTIONS. */
const NODE_FLAGS = (process.env.TESSERA_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const BIN = fileURLToPath(new URL('../bin/tessera', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tessera-wf-scale-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;

/** The same start on an empty data directory (process start-up alone: node, tsx, threads). */
async function emptyStartMs(): Promise<number> {
  const other = await freePort();
  const t = performance.now();
  const child = spawn(process.execPath, [BIN, '--path.data', join(dir, 'empty'), '--services', 'workflow', '--workflow.port', String(other),
    '--workflow.test-clock', '--log.level', 'warn', ...extra], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise((resolve, reject) => { child.once('message', resolve); child.once('exit', reject); });
  await fetch(`http://127.0.0.1:${other}/health`);
  const ms = performance.now() - t;
  child.kill('SIGKILL');
  return ms;
}

function startTessera(): Promise<{ child: ChildProcess; startedAt: number }> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [...NODE_FLAGS, BIN, '--path.data', join(dir, 'data'), '--services', 'workflow', '--workflow.port', String(port),
    '--workflow.test-clock', '--log.level', 'warn', ...extra], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve({ child, startedAt }));
    child.once('exit', (code) => reject(new Error(`tessera exited with ${code}`)));
  });
}

/** Anonymous resident memory of a process in MiB (heap, stacks, mmapped anonymous memory; not file pages). */
function rssAnonMiB(pid: number): number {
  const m = /RssAnon:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** CPU time (user + system, in clock ticks of 10 ms) of each thread of a process, by name and thread id. */
function threadTicks(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try { stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'); } catch { continue; } // the thread ended
    const close = stat.lastIndexOf(')');
    // Node names neither its worker threads nor V8's helpers, so threads are told apart by id (the first is main).
    const name = `${stat.slice(stat.indexOf('(') + 1, close)}/${tid}`;
    const f = stat.slice(close + 2).split(' ');
    out.set(name, (out.get(name) ?? 0) + Number(f[11]) + Number(f[12])); // utime, stime (fields 14, 15)
  }
  return out;
}

/** Microseconds of CPU per event between two threadTicks snapshots, by thread name and in total. */
function cpuPerEvent(before: Map<string, number>, after: Map<string, number>, n: number): string {
  const parts: string[] = [];
  let total = 0;
  for (const [name, t] of after) {
    const us = ((t - (before.get(name) ?? 0)) * 10_000) / n;
    total += us;
    if (us >= 3) parts.push(`${name} ${us.toFixed(0)}`);
  }
  return `${total.toFixed(0)} µs (${parts.join(', ')})`;
}

interface CommitFigures { commits: number; committedWrites: number; commitMs: number; kv: { txns: number; txnMs: number; syncMs: number; pagesWritten: number; logSyncs?: number } | null }

/** The engine threads' commits between two `/health` answers: batch size, duration, where LMDB spent it. */
function commitSummary(a: CommitFigures, b: CommitFigures, events: number): string {
  const n = b.commits - a.commits;
  let out = `${n} (${(events / n).toFixed(1)} events and ${((b.committedWrites - a.committedWrites) / n).toFixed(0)} records each), `
    + `start to durable ${((b.commitMs - a.commitMs) / n).toFixed(2)} ms on average`;
  if (a.kv && b.kv) {
    const t = b.kv.txns - a.kv.txns;
    out += `; LMDB per transaction: ${((b.kv.txnMs - a.kv.txnMs) / t).toFixed(2)} ms writing, ${((b.kv.syncMs - a.kv.syncMs) / t).toFixed(2)} ms syncing, `
      + `${((b.kv.pagesWritten - a.kv.pagesWritten) / t).toFixed(1)} pages, ${(n / t).toFixed(1)} commits each`;
    if (a.kv.logSyncs !== undefined && b.kv.logSyncs !== undefined) out += `; commit log: ${b.kv.logSyncs - a.kv.logSyncs} fsyncs`;
  }
  return out;
}

/** A call that may run for minutes (firing a million timers): node:http without fetch's 300 s header timeout. */
function longPost(path: string, body: unknown): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => { const j = JSON.parse(text); if (j.success) resolve(j.data); else reject(new Error(j.error)); });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(base + path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const j = await r.json() as { success: boolean; error: string; data: any };
  if (!j.success) throw new Error(`${method} ${path}: ${j.error}`);
  return j.data;
}

async function setup(): Promise<number> {
  await api('POST', '/__test__/clock', { set: T0 });
  await api('POST', '/livestream/channels', { businessId: 170, channelId: 'ch1', name: 'launch', liveStatus: 'unStart', startTime: T0 + 30 * DAY });
  const wf = await api('POST', '/workflow/manage', {
    version: 1, businessId: 170, title: 'launch reminder', enable: true, status: 1, oneOff: false, target: '{"type":"all"}', workflowElements: [
      { displayId: 'e1', type: 'Event', incomings: '[]', outgoings: '["p1"]', properties: [{ name: 'event', operation: 'in', value: 'livestream' }, { name: 'eventValue', operation: 'in', value: 'livestream-submit-ch1' }] },
      { displayId: 'a1', type: 'Action', incomings: '["p1"]', outgoings: '["p2"]', properties: [], extensions: '{"action":"countdown","countdown":"livestream_rule_starttime_ch1","countdownValue":3600000}' },
      { displayId: 'a2', type: 'Action', incomings: '["p2"]', outgoings: '[]', properties: [], extensions: '{"action":"tag","actionValue":"reminded"}' },
    ],
  });
  return wf.id as number;
}

const stats = (id: number) => api('GET', `/workflow/manage/${id}/statistics`);

async function events(): Promise<void> {
  const [contacts = 100_000, connections = 64, maxSeconds = 30] = nums;
  const { child } = await startTessera();
  try {
    const id = await setup();
    let n = 0;
    const commits0 = (await api('GET', '/health')).commits;
    const ticks0 = threadTicks(child.pid!);
    const ownTicks0 = threadTicks(process.pid);
    const t = performance.now();
    // autocannon resolves at its next one-second tick after the last response, which would add up to a second
    // to a run of ~10 s: the rate is taken up to the last acknowledgement instead.
    let lastAck = t;
    const r = await autocannon({
      url: base, connections, pipelining: 1, amount: contacts, duration: Math.min(maxSeconds, 30),
      requests: [{
        method: 'POST', path: '/rest/livestream/event', headers: { 'content-type': 'application/json' },
        setupRequest: (req: any) => ({ ...req, body: JSON.stringify({ event: 'submit', channel_id: 'ch1', business_id: 170, contact_id: `c${n++}` }) }),
        onResponse: (status: number) => { if (status >= 200 && status < 300) lastAck = performance.now(); },
      }],
    });
    const seconds = (lastAck - t) / 1000;
    const ticks1 = threadTicks(child.pid!);
    const ownTicks1 = threadTicks(process.pid);
    const s = await stats(id);
    const commits1 = (await api('GET', '/health')).commits;
    const ok = r['2xx'];
    console.log(`contacts ${contacts}, connections ${connections}: ${ok} acknowledged in ${seconds.toFixed(1)} s`);
    console.log(`durable events/s: ${Math.round(ok / seconds)} (autocannon's average over whole seconds ${Math.round(r.requests.average)}), p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, errors ${r.errors}, non-2xx ${r.non2xx}`);
    // autocannon's latencies are whole milliseconds; the shape of the tail says more than p99 alone.
    const l = r.latency;
    console.log(`latency ms: p75 ${l.p75}, p90 ${l.p90}, p97.5 ${l.p97_5}, p99 ${l.p99}, p99.9 ${l.p99_9}, max ${l.max}`);
    console.log(`runs entered ${s.entered}, countdowns waiting ${s.elements.a1.waiting}: ${s.entered === ok && s.elements.a1.waiting === ok ? 'complete' : 'MISMATCH'}`);
    console.log(`server CPU per acknowledged event: ${cpuPerEvent(ticks0, ticks1, ok)}`);
    // The load generator runs on the same two cores: what it spends bounds what is left for the server.
    console.log(`load generator CPU per acknowledged event: ${cpuPerEvent(ownTicks0, ownTicks1, ok)}`);
    console.log(`commits: ${commitSummary(commits0, commits1, ok)}`);
    console.log(`RssAnon after the run: ${rssAnonMiB(child.pid!).toFixed(0)} MiB`);
    // A profiling run (`--cpu-prof` in TESSERA_NODE_FLAGS) writes its profiles only on an orderly exit.
    if (process.env.TESSERA_STOP === 'SIGTERM') {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
    }
  } finally {
    child.kill('SIGKILL');
  }
}

async function scale(): Promise<void> {
  const [contacts = 1_000_000, batch = 1000] = nums;
  let { child } = await startTessera();
  try {
    const id = await setup();
    const idle = rssAnonMiB(child.pid!);
    const t = performance.now();
    let next = 0;
    const sender = async () => {
      while (next < contacts) {
        const from = next;
        next += batch;
        const evs = [];
        for (let i = from; i < Math.min(from + batch, contacts); i++) evs.push({ event: 'submit', channel_id: 'ch1', business_id: 170, contact_id: `c${i}` });
        await api('POST', '/rest/livestream/events', { events: evs });
      }
    };
    await Promise.all(Array.from({ length: 8 }, sender));
    const loadS = (performance.now() - t) / 1000;
    const before = await stats(id);
    console.log(`loaded ${before.entered} pending countdowns in ${loadS.toFixed(1)} s (${Math.round(before.entered / loadS)} events/s in batches of ${batch})`);
    const loaded = rssAnonMiB(child.pid!);
    // V8 gives memory back once allocation stops for a while (its memory reducer): the settled figure counts.
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    console.log(`RssAnon: idle ${idle.toFixed(0)} MiB; with ${before.elements.a1.waiting} countdowns pending ${loaded.toFixed(0)} MiB right after loading, ${rssAnonMiB(child.pid!).toFixed(0)} MiB after ${SETTLE_MS / 1000} s idle`);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const restarted = await startTessera();
    child = restarted.child;
    const s = await stats(id);
    const restartMs = performance.now() - restarted.startedAt;
    console.log(`restart after kill -9 until statistics answer: ${(restartMs / 1000).toFixed(2)} s (process start included); waiting ${s.elements.a1.waiting}; RssAnon ${rssAnonMiB(child.pid!).toFixed(0)} MiB`);
    const empty = await emptyStartMs();
    console.log(`for comparison, start of an empty data directory until statistics answer: ${(empty / 1000).toFixed(2)} s`);
    const fireAt = T0 + 30 * DAY - H;
    await api('POST', '/__test__/clock', { set: fireAt - 1 });
    const early = await stats(id);
    const tf = performance.now();
    await longPost('/__test__/clock', { set: fireAt });
    const fired = await stats(id);
    const fireS = (performance.now() - tf) / 1000;
    const late = await api('GET', `/workflow/actions?workflowId=${id}&status=succeeded&size=1000`);
    const lateCount = late.filter((a: any) => a.late).length;
    console.log(`at fireAt−1 ms: executed ${early.elements.a2.executed ?? 0}; at fireAt: executed ${fired.elements.a2.executed} of ${fired.entered} in ${fireS.toFixed(1)} s, waiting ${fired.elements.a1.waiting}, completed ${fired.completed}, late among the first 1000 entries: ${lateCount}`);
    const ok = early.elements.a2.executed === 0 && fired.elements.a2.executed === fired.entered && fired.entered === before.entered && fired.completed === fired.entered && lateCount === 0;
    console.log(`none lost, none twice, on time: ${ok}`);
    console.log(`RssAnon after firing: ${rssAnonMiB(child.pid!).toFixed(0)} MiB`);
  } finally {
    child.kill('SIGKILL');
  }
}

try {
  if (mode === 'events') await events(); else if (mode === 'scale') await scale(); else throw new Error(`unknown mode ${mode}`);
} finally {
  setTimeout(() => rmSync(dir, { recursive: true, force: true }), 1500);
}
