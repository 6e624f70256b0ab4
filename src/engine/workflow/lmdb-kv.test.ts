import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../store/lmdb.ts';
import { WORKFLOW_COMMIT_DB, WORKFLOW_COMMIT_KEY, WORKFLOW_META_KEY, WORKFLOW_STATE_VERSION } from '../codec/format-ids.ts';
import { FormatVersionError } from '../errors.ts';
import { WorkflowEngine } from './engine.ts';
import { LmdbKv } from './lmdb-kv.ts';
import type { Meta } from './store.ts';
import { encodeValue } from './values.ts';

const layout2Meta = (layout: number): Meta => ({ layout, seq: { run: 7 }, appliedLow: 0, appliedAbove: [], clock: null, partition: 0, partitions: 1 });

/** A partition environment as a layout-2 build left it: records, no commit guard. */
async function writeLayout(dir: string, layout: number): Promise<void> {
  const st = Store.open(dir);
  st.db<Meta>('wf2_meta').putSync(WORKFLOW_META_KEY, layout2Meta(layout));
  st.db<number>('wf2_inbound_events').putSync('1\u001fev-1', 5);
  await st.close();
}

/** Runs `fn` in a new temporary directory, deleted afterwards. */
function inTempDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-wfkv-'));
    try { await fn(dir); } finally { rmSync(dir, { recursive: true, force: true }); }
  };
}

test('layout 2 opens: the commit guard is created, the first commit sets the current layout and counts from there', inTempDir(async (dir) => {
  await writeLayout(dir, 2);
  let kv = LmdbKv.open(dir);
  assert.equal(kv.store.guardVersion(WORKFLOW_COMMIT_DB, WORKFLOW_COMMIT_KEY), undefined, 'nothing is written at open');
  const engine = new WorkflowEngine({ kv });
  assert.equal(engine.st.state.layout, WORKFLOW_STATE_VERSION);
  await engine.flush();
  await kv.close();

  kv = LmdbKv.open(dir);
  assert.equal(kv.store.guardVersion(WORKFLOW_COMMIT_DB, WORKFLOW_COMMIT_KEY), 1, 'one commit since the upgrade');
  assert.equal((kv.get('meta', WORKFLOW_META_KEY) as Meta).layout, WORKFLOW_STATE_VERSION);
  assert.deepEqual((kv.get('meta', WORKFLOW_META_KEY) as Meta).seq, { run: 7 });
  assert.equal(kv.get('inbound_events', '1\u001fev-1'), 5, 'layout-2 records are read as before');
  await kv.commit([{ space: 'inbound_events', key: '1\u001fev-2', value: encodeValue(6) }]);
  await kv.commit([{ space: 'inbound_events', key: '1\u001fev-3', value: encodeValue(7) }]);
  assert.equal(kv.store.guardVersion(WORKFLOW_COMMIT_DB, WORKFLOW_COMMIT_KEY), 3);
  assert.equal(kv.get('inbound_events', '1\u001fev-3'), 7);
  await kv.close();
}));

test('a layout newer than this build refuses to open', inTempDir(async (dir) => {
  await writeLayout(dir, WORKFLOW_STATE_VERSION + 1);
  const kv = LmdbKv.open(dir);
  assert.throws(() => new WorkflowEngine({ kv }), FormatVersionError);
  await kv.close();
}));

test('a commit refused by the guard without an earlier failure is an internal error, and writes nothing', inTempDir(async (dir) => {
  const kv = LmdbKv.open(dir);
  // A second writer of the partition (not something Tessera does) moves the counter: the chain no longer matches.
  const other = LmdbKv.open(dir);
  await other.commit([{ space: 'x', key: 'b', value: encodeValue(2) }]);
  await assert.rejects(kv.commit([{ space: 'x', key: 'a', value: encodeValue(1) }]), { code: 'INTERNAL' });
  assert.equal(kv.get('x', 'a'), undefined);
  assert.equal(kv.get('x', 'b'), 2);
  await other.close();
  await kv.close();
}));
