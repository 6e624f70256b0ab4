import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveCountdown } from './countdown.ts';
import { compare, parseEventValue, parseRuleProperty } from './properties.ts';
import { checkGraph, type GraphElement } from './graph.ts';
import { TimerHeap } from './timer-queue.ts';
import { WorkflowEngine } from './engine.ts';
import { MemoryKv } from './kv.ts';

test('countdown resolution table (spec §7)', () => {
  const H = 3_600_000;
  const cases: [number | null | undefined, number, number, string, number?][] = [
    [undefined, H, 0, 'missing'],
    [null, H, 0, 'wait'],
    [3 * H, H, 0, 'at', 2 * H],
    [3 * H, H, 2 * H, 'late', 2 * H],           // target == now, before the start
    [3 * H, H, 2.5 * H, 'late', 2 * H],
    [3 * H, H, 3 * H, 'passed'],                // the stream starts now
    [3 * H, 0, H, 'at', 3 * H],
  ];
  for (const [start, value, now, kind, fireAt] of cases) {
    const r = resolveCountdown(start, value, now);
    assert.equal(r.kind, kind, `${start} ${value} ${now}`);
    if (fireAt !== undefined) assert.equal((r as { fireAt: number }).fireAt, fireAt);
  }
});

test('property names keep channel ids with underscores; event values keep ids with dashes', () => {
  assert.deepEqual(parseRuleProperty('livestream_rule_playcount_ch_1_x'), { kind: 'playcount', channelId: 'ch_1_x', numeric: true });
  assert.deepEqual(parseRuleProperty('livestream_rule_livestatus_2707858'), { kind: 'livestatus', channelId: '2707858', numeric: false });
  assert.equal(parseRuleProperty('livestream_rule_playcount_'), null);
  assert.equal(parseRuleProperty('livestream_rule_mood_ch1'), null);
  assert.deepEqual(parseEventValue('livestream-play-ch-1-a'), { source: 'livestream', event: 'play', channelId: 'ch-1-a' });
});

test('operators: lists, numbers, and undefined makes everything false', () => {
  const cases: [string | number | undefined, string, string, boolean, boolean][] = [
    ['live', 'in', 'live, end', false, true],
    ['live', 'in', '["end","live"]', false, true],
    ['vod', 'notIn', 'live', false, true],
    [undefined, 'notIn', 'live', false, false],
    [undefined, 'in', 'live', false, false],
    [3, 'greaterThan', '1', true, true],
    [1, 'greaterThan', '1', true, false],
    [1, 'greaterThanOrEqual', '1', true, true],
    [2, 'equals', '2.0', true, true],
    ['2', 'equals', '2.0', false, false],
    [5, 'lessThan', '10', true, true],
    [5, 'in', '1,5', true, true],
  ];
  for (const [actual, op, value, numeric, want] of cases) {
    assert.equal(compare(actual, op as never, value, numeric), want, `${actual} ${op} ${value}`);
  }
});

test('in/notIn lists are parsed once per text: the same answers on repeat, for each text, past the memo\'s bound', () => {
  for (let round = 0; round < 2; round++) {
    assert.equal(compare('b', 'in', 'a, b', false), true);
    assert.equal(compare('b', 'in', '["a","c"]', false), false);
    assert.equal(compare('b', 'notIn', 'a, b', false), false);
    assert.equal(compare(5, 'in', '1,5', true), true);
    assert.equal(compare(5, 'in', '1,5.0', false), false);
  }
  // More distinct lists than the memo holds: each still answers for its own text.
  for (let i = 0; i < 3000; i++) assert.equal(compare(`v${i}`, 'in', `x, v${i}`, false), true);
  assert.equal(compare('a', 'in', 'a, b', false), true);
  // A malformed list fails every time, not only the first.
  for (let i = 0; i < 2; i++) assert.throws(() => compare('a', 'in', '["a"', false));
});

const el = (displayId: string, type: GraphElement['type'], incomings: string[], outgoings: string[], extensions: unknown = null): GraphElement =>
  ({ displayId, type, incomings, outgoings, extensions });

test('graph checks (spec §2 GRAPH_INVALID) and warnings', () => {
  const ok = checkGraph([el('e', 'Event', [], ['p1']), el('r', 'Rule', ['p1'], ['p2', 'p3']), el('a', 'Action', ['p2'], ['p4'])]);
  assert.deepEqual(ok.errors, []);
  assert.deepEqual(ok.warnings.length, 2, 'p3 and p4 lead nowhere');
  const bad: [string, GraphElement[], RegExp][] = [
    ['duplicate', [el('e', 'Event', [], []), el('e', 'Action', [], [])], /duplicate displayId/],
    ['no source', [el('e', 'Event', [], []), el('a', 'Action', ['px'], [])], /has no source/],
    ['two sources', [el('e', 'Event', [], ['p']), el('a', 'Action', [], ['p'])], /outgoing of both/],
    ['cycle', [el('e', 'Event', [], ['p1']), el('a', 'Action', ['p1', 'p3'], ['p2']), el('b', 'Action', ['p2'], ['p3'])], /cycle/],
    ['no entry', [el('a', 'Action', [], [])], /no entry/],
    ['rule fan-out', [el('e', 'Event', [], ['p']), el('r', 'Rule', ['p'], ['a', 'b', 'c'])], /more than 2/],
    ['rule yes not outgoing', [el('e', 'Event', [], ['p']), el('r', 'Rule', ['p'], ['a'], { yes: 'zz' })], /not among its outgoings/],
    ['event with incomings', [el('e', 'Event', [], ['p']), el('f', 'Event', ['p'], [])], /wait-for-event/],
  ];
  for (const [name, els, re] of bad) {
    const r = checkGraph(els);
    assert.ok(r.errors.some((e) => re.test(e.message)), `${name}: ${JSON.stringify(r.errors)}`);
  }
});

test('timer heap pops in fireAt order', () => {
  const h = new TimerHeap();
  const xs = Array.from({ length: 2000 }, (_, i) => (i * 7919) % 1009);
  xs.forEach((x, i) => h.push(x, `t${i}`));
  const out: number[] = [];
  while (h.size) { out.push(h.peekAt()); h.pop(); }
  assert.deepEqual(out, [...xs].sort((a, b) => a - b));
});

function engineWithWorkflow(kv: MemoryKv): WorkflowEngine {
  const e = new WorkflowEngine({ kv, realNow: () => 1_000_000 });
  if (!e.st.channels.has('170|ch1')) {
    e.call('channels.upsert', { body: { businessId: 170, channelId: 'ch1', startTime: null } });
    e.call('workflow.save', { body: { version: 1, businessId: 170, title: 't', enable: true, status: 1, workflowElements: [
      { displayId: 'e1', type: 'event', incomings: '[]', outgoings: '["p"]', properties: [{ name: 'event', operation: 'in', value: 'livestream' }] },
      { displayId: 'a1', type: 'ACTION', incomings: ['p'], outgoings: [], extensions: { action: 'tag', actionValue: ['x', 'y'], repeat: true } },
    ] } });
  }
  return e;
}

test('exactly once across a simulated crash: committed events are not re-applied, the rest are', async () => {
  const kv = new MemoryKv();
  const a = engineWithWorkflow(kv);
  const ev = (i: number) => ({ event: 'play', channel_id: 'ch1', business_id: 170, contact_id: `c${i}` });
  for (let i = 1; i <= 5; i++) a.call('event', { seq: i, body: ev(i) });
  await a.flush();
  for (let i = 6; i <= 10; i++) a.call('event', { seq: i, body: ev(i) }); // processed, never committed: "crash"
  const b = engineWithWorkflow(kv);
  const replies = [];
  for (let i = 1; i <= 10; i++) replies.push(b.call('event', { seq: i, body: ev(i) }));
  assert.equal(replies.filter((r) => (r as { replayed?: boolean }).replayed).length, 5);
  await b.flush();
  const c = engineWithWorkflow(kv);
  const stats = c.call('workflow.statistics', { id: 1 }) as { entered: number; completed: number };
  assert.equal(stats.entered, 10);
  assert.equal(stats.completed, 10);
  assert.equal((c.call('workflow.actions', { workflowId: 1 }) as unknown[]).length, 10);
  assert.deepEqual(c.call('contacts.tags', { businessId: 170, contactId: 'c7' }), ['x', 'y']);
  assert.equal(c.st.state.appliedLow, 10);
});

test('element types in any casing and already-parsed JSON fields are accepted and echoed as strings', () => {
  const e = engineWithWorkflow(new MemoryKv());
  const wf = e.call('workflow.get', { id: 1 }) as { workflowElements: { type: string; incomings: string; extensions: string | null }[] };
  assert.deepEqual(wf.workflowElements.map((x) => x.type), ['Event', 'Action']);
  assert.equal(wf.workflowElements[1].incomings, '["p"]');
  assert.deepEqual(JSON.parse(wf.workflowElements[1].extensions!), { action: 'tag', actionValue: ['x', 'y'], repeat: true });
});

test('serial per contact: a contact waiting on a webhook queues its next event; other contacts go on', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  let calls = 0;
  const fakeFetch = (async () => {
    if (++calls === 1) await gate;
    return new Response('{}', { status: 200 });
  }) as typeof fetch;
  const e = new WorkflowEngine({ kv: new MemoryKv(), realNow: () => 5_000, fetch: fakeFetch, allowPrivateWebhookTargets: true });
  e.call('channels.upsert', { body: { businessId: 1, channelId: 'ch1' } });
  e.call('workflow.save', { body: { version: 1, businessId: 1, title: 't', enable: true, status: 1, workflowElements: [
    { displayId: 'e1', type: 'Event', incomings: [], outgoings: ['p1'], properties: [{ name: 'event', operation: 'in', value: 'livestream' }] },
    { displayId: 'w1', type: 'Action', incomings: ['p1'], outgoings: ['p2'], extensions: { action: 'webhook', actionValue: { url: 'http://127.0.0.1:9/x' } } },
    { displayId: 'a1', type: 'Action', incomings: ['p2'], outgoings: [], extensions: { action: 'tag', actionValue: 'after', repeat: true } },
  ] } });
  const play = (c: string) => e.call('event', { seq: 0, body: { event: 'play', channel_id: 'ch1', business_id: 1, contact_id: c } });
  const first = play('c1');
  assert.ok(first instanceof Promise, 'the first event waits for its webhook');
  const second = play('c1');
  assert.ok(second instanceof Promise, "c1's next event is queued behind it");
  const state = () => (e.call('state', { businessId: 1, contactId: 'c1', channelId: 'ch1' }) as Record<string, number>).livestream_rule_playcount_ch1;
  assert.equal(state(), 1, 'the queued event has not touched the state yet');
  const other = await play('c2');
  assert.equal((other as { runsStarted: unknown[] }).runsStarted.length, 1, 'another contact is not blocked');
  release();
  const [r1, r2] = await Promise.all([first, second]) as { runsStarted: { runId: string }[]; entryRejected: unknown[] }[];
  assert.equal(r1.runsStarted.length, 1);
  assert.equal(r2.runsStarted.length, 1, 'run 1 had completed when the second event was processed');
  assert.deepEqual(r2.entryRejected, []);
  assert.equal(state(), 2);
  const runs = e.call('workflow.runs', { id: 1, contactId: 'c1' }) as { entryNo: number; status: string }[];
  assert.deepEqual(runs.map((r) => [r.entryNo, r.status]), [[1, 'completed'], [2, 'completed']]);
  assert.deepEqual(e.call('contacts.tags', { businessId: 1, contactId: 'c1' }), ['after']);
});

test('applied marks: out-of-order sequence numbers close up into the low mark and survive a reload', async () => {
  const kv = new MemoryKv();
  const a = new WorkflowEngine({ kv });
  for (const seq of [1, 3, 5, 4]) a.st.markApplied(seq);
  assert.equal(a.st.state.appliedLow, 1);
  assert.deepEqual([2, 3, 4, 5, 6].map((s) => a.st.isApplied(s)), [false, true, true, true, false]);
  a.st.setClock(0);
  await a.flush();
  const b = new WorkflowEngine({ kv });
  assert.equal(b.st.isApplied(4), true);
  b.st.markApplied(2);
  assert.equal(b.st.state.appliedLow, 5);
  assert.equal(b.st.above.size, 0);
});
