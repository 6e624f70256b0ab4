import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from '../codec/msgpack.ts';
import { STORE_VALUE_VERSION, WORKFLOW_META_KEY, WORKFLOW_STATE_VERSION, WORKFLOW_VALUE_RECORDS } from '../codec/format-ids.ts';
import { CorruptionError } from '../errors.ts';
import { Store } from '../store/lmdb.ts';
import { LmdbKv } from './lmdb-kv.ts';
import { WorkflowEngine } from './engine.ts';
import type { Meta } from './store.ts';
import { decodeValue, encodeValue, RECORD_STRUCTURES } from './values.ts';

const T0 = 1_700_000_000_000;
const run = {
  id: 'r000000000001', workflowId: 1, contactKey: 'b:170:c:c1', businessId: 170, contactId: 'c1', entryNo: 1, status: 'active',
  triggerEventId: 'ev-000000000001', startedAt: T0, endedAt: null, visited: ['e1', 'a1'], open: 1, failed: false,
  steps: [
    { runId: 'r000000000001', elementDisplayId: 'e1', at: T0, outcome: 'entered' },
    { runId: 'r000000000001', elementDisplayId: 'a1', at: T0, outcome: 'scheduled', detail: { timerId: 't000000000001', kind: 'countdown', fireAt: T0 + 5 } },
  ],
  timerIds: ['t000000000001'], actionIds: [],
};
const timer = {
  id: 't000000000001', runId: 'r000000000001', workflowId: 1, elementDisplayId: 'a1', kind: 'countdown', arrivedAt: T0, fireAt: T0 + 5,
  expiresAt: null, businessId: 170, state: 'pending', history: [{ at: T0, fireAt: T0 + 5, reason: 'scheduled' }], channelId: 'ch1', countdownValue: 3_600_000,
};

test('layout 4 values: a leading byte, then a one-byte reference to the shared structure and the values only', () => {
  const bytes = encodeValue(run);
  assert.equal(bytes[0], WORKFLOW_VALUE_RECORDS);
  assert.equal(bytes[1], 0x40 + 0, 'run: record structure 0');
  assert.equal(encodeValue(timer)[1], 0x40 + 1, 'countdown timer: record structure 1');
  assert.equal(encodeValue({ entries: 1, active: 'r1', runs: ['r1'] })[1], 0x40 + 4, 'run head: record structure 4');
  // No key is spelled out: the bytes hold none of the field names.
  const text = Buffer.from(bytes).toString('latin1');
  for (const k of ['workflowId', 'contactKey', 'elementDisplayId', 'outcome', 'timerId']) assert.ok(!text.includes(k), k);
  const plainLength = pack(run).length + 1;
  assert.ok(bytes.length < plainLength * 0.6, `${bytes.length} bytes against ${plainLength} as plain maps`);
  assert.deepEqual(decodeValue(bytes, 'run'), run);
  assert.deepEqual(decodeValue(encodeValue(timer), 'timer'), timer);
});

test('the structure list is append-only: the first entries are exactly the layout-4 ones', () => {
  assert.deepEqual(RECORD_STRUCTURES[0].slice(0, 3), ['id', 'workflowId', 'contactKey']);
  assert.deepEqual(RECORD_STRUCTURES[4], ['entries', 'active', 'runs']);
  assert.deepEqual(RECORD_STRUCTURES[9], ['at', 'fireAt', 'reason']);
  assert.equal(RECORD_STRUCTURES.length, 11);
});

test('any other shape and value round-trips, alone and interleaved with shared shapes', () => {
  const values: unknown[] = [
    { ...run, reason: 'x', cancelledBranch: true }, // a shared shape with fields added
    { workflowId: 1, id: 'r2' }, // shared keys, another order
    { submitCount: 1 }, { a: { b: { c: [1, 'x', null] } } }, {}, [],
    ...Array.from({ length: 200 }, (_, i) => i - 40), // 0x40–0x7f are record references in records mode
    { n: 64, m: 127, o: [64, 65, 100, 127, 128] }, 2 ** 40, -(2 ** 40), 1.5, 'text', '', null, true, false,
    { entries: 2, active: null, runs: ['r1', 'r2'], extra: { entries: 3, active: 'r3', runs: [] } },
    [{ at: 1, fireAt: null, reason: 'a' }, { at: 2, fireAt: 3, reason: 'b', more: 1 }, { at: 4, fireAt: 5, reason: 'c' }],
    // Larger than the encoder's slab: it is moved to a bigger one mid-value, and the next values go there.
    { ...run, steps: Array.from({ length: 400 }, (_, i) => ({ ...run.steps[0], at: T0 + i })), note: 'é'.repeat(20_000) },
    { ...timer },
  ];
  for (let round = 0; round < 2; round++) {
    for (const v of values) assert.deepEqual(decodeValue(encodeValue(v), 'v'), v, JSON.stringify(v));
  }
  // Decoding in another order than encoding (as reads after a restart do): each value owns its bytes, though
  // the encoder writes every value over the same slab space.
  const encoded = values.map((v) => encodeValue(v));
  for (let i = encoded.length - 1; i >= 0; i--) assert.deepEqual(decodeValue(encoded[i], 'v'), values[i]);
});

test('values of layouts 2–3 (plain msgpack behind the store value version) are read; anything else is corrupt', () => {
  const old = Buffer.concat([Buffer.from([STORE_VALUE_VERSION]), pack(run)]);
  assert.deepEqual(decodeValue(old, 'old run'), run);
  assert.equal(decodeValue(Buffer.concat([Buffer.from([STORE_VALUE_VERSION]), pack(100)]), 'old int'), 100, 'an old 100 is not a record reference');
  assert.throws(() => decodeValue(new Uint8Array([9, 1]), 'x'), CorruptionError);
  assert.throws(() => decodeValue(new Uint8Array([]), 'x'), CorruptionError);
});

test('a layout-3 partition opens: its records are read, the first commit sets the current layout, old and new values sit side by side', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-wfval-'));
  try {
    // As a layout-3 build left it: every value written by `Store` (value version 1, then plain msgpack).
    const st = Store.open(dir);
    const meta: Meta = { layout: 3, seq: { run: 1, timer: 1 }, appliedLow: 0, appliedAbove: [], clock: T0, partition: 0, partitions: 1 };
    st.db<Meta>('wf2_meta').putSync(WORKFLOW_META_KEY, meta);
    st.db('wf2_runs').putSync(run.id, run);
    st.db('wf2_timers').putSync(timer.id, timer);
    st.db('wf2_ix_timers_due').putSync(`${String(T0 + 5).padStart(16, '0')}\u001f${timer.id}`, 1);
    await st.close();

    let kv = LmdbKv.open(dir);
    const engine = new WorkflowEngine({ kv });
    assert.equal(engine.st.state.layout, WORKFLOW_STATE_VERSION);
    assert.deepEqual(engine.st.runs.get(run.id), run);
    assert.deepEqual(engine.st.timers.get(timer.id), timer);
    assert.equal(engine.nextFireAt(), T0 + 5, 'the old due index is read');
    const changed = engine.st.runs.get(run.id)!;
    changed.open = 2;
    engine.st.runs.touch(run.id);
    await engine.flush();
    await kv.close();

    const raw = Store.open(dir);
    assert.equal(raw.db('wf2_runs').getStored(run.id)![0], WORKFLOW_VALUE_RECORDS, 'a changed record is rewritten in the new form');
    assert.equal(raw.db('wf2_timers').getStored(timer.id)![0], STORE_VALUE_VERSION, 'an unchanged one stays as it was');
    await raw.close();
    kv = LmdbKv.open(dir);
    assert.equal((kv.get('meta', WORKFLOW_META_KEY) as Meta).layout, WORKFLOW_STATE_VERSION);
    assert.deepEqual(kv.get('runs', run.id), { ...run, open: 2 });
    assert.deepEqual(kv.get('timers', timer.id), timer);
    await kv.close();
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
