/**
 * kill -9 of a child that is appending through the TSDB engine (real WAL), also while it cuts blocks and
 * checkpoints the WAL, and while two shards cut parts that are merged into the shared block directory: after
 * restart, every sample whose append had been acknowledged is there, once, with its exact timestamp and value.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MATCH_EQUAL, newMatcher } from '../../src/engine/tsdb/api.ts';
import { maintainShared, PromWal, SharedBlocks, Tsdb } from '../../src/engine/tsdb/index.ts';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ULID_RE } from '../../src/engine/tsdb/ulid.ts';
import { tempDir } from './support/db.ts';

const CHILD = fileURLToPath(new URL('./support/ingest-child.ts', import.meta.url));
const CHECKPOINT_CHILD = fileURLToPath(new URL('./support/checkpoint-child.ts', import.meta.url));
const SHARED_CHILD = fileURLToPath(new URL('./support/shared-child.ts', import.meta.url));
const SERIES = 10;

function runAndKill(dir: string, minAcked: number, child_ = CHILD): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', child_, dir, String(SERIES)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let acked = 0, buf = '', err = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`child too slow: acked ${acked}; ${err}`)); }, 30_000);
    child.stderr.on('data', (d) => { err += d; });
    child.stdout.on('data', (d) => {
      buf += d;
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const l of lines) if (l.startsWith('ack ')) acked = Number(l.slice(4));
      if (acked >= minAcked && !child.killed) child.kill('SIGKILL');
    });
    child.on('exit', () => { clearTimeout(timer); resolve(acked); });
  });
}

test('kill -9 during ingestion loses no acknowledged sample', async () => {
  const { dir, cleanup } = tempDir('tsdb-crash-');
  try {
    const acked = await runAndKill(dir, 4000);
    assert.ok(acked >= 4000);
    const db = await Tsdb.open({ dir, openWal: (d) => PromWal.open({ dir: d, compress: true }) });
    let total = 0;
    for (let s = 0; s < SERIES; s++) {
      const got = db.select([newMatcher(MATCH_EQUAL, 's', String(s))], -Infinity, Infinity);
      assert.equal(got.length, 1);
      const { t, v } = got[0];
      for (let k = 0; k < t.length; k++) { assert.equal(t[k], k * 1000); assert.equal(v[k], k); }
      total += t.length;
    }
    assert.ok(total >= acked, `recovered ${total} < acknowledged ${acked}`);
    await db.close();
  } finally { cleanup(); }
});

/** Kill points spread over the cut/checkpoint cycle: different counts of acknowledged samples. */
for (const minAcked of [3_000, 7_000, 12_000]) {
  test(`kill -9 while blocks are cut and the WAL checkpointed (after ${minAcked} samples) loses nothing acknowledged`, async () => {
    const { dir, cleanup } = tempDir('tsdb-crash-cp-');
    try {
      const acked = await runAndKill(dir, minAcked, CHECKPOINT_CHILD);
      const db = await Tsdb.open({ dir, blockRangeMs: 60_000, openWal: (d) => PromWal.open({ dir: d }) });
      assert.ok(db.blocks.length > 0, 'blocks were cut before the kill');
      let total = 0;
      for (let s = 0; s < SERIES; s++) {
        const { t, v } = db.select([newMatcher(MATCH_EQUAL, 's', String(s))], -Infinity, Infinity)[0];
        for (let k = 0; k < t.length; k++) { assert.equal(t[k], k * 1000, `series ${s} sample ${k}`); assert.equal(v[k], k); }
        total += t.length;
      }
      assert.ok(total >= acked, `recovered ${total} < acknowledged ${acked}`);
      await db.close();
    } finally { cleanup(); }
  });
}

/** Every series' samples over both shards: contiguous from t = 0, each once; returns the total. */
function checkShards(dbs: Tsdb[]): number {
  let total = 0;
  for (let s = 0; s < SERIES; s++) {
    const got = dbs.flatMap((d) => d.select([newMatcher(MATCH_EQUAL, 's', String(s))], -Infinity, Infinity));
    assert.equal(got.length, 1, `series ${s} is served by exactly one shard`);
    const { t, v } = got[0];
    for (let k = 0; k < t.length; k++) { assert.equal(t[k], k * 1000, `series ${s} sample ${k}`); assert.equal(v[k], k); }
    total += t.length;
  }
  return total;
}

for (const minAcked of [2_000, 3_500, 5_000]) {
  test(`kill -9 while two shards cut parts and the parts are merged into shared blocks (after ${minAcked} samples) loses nothing, reads nothing twice`, async () => {
    const { dir, cleanup } = tempDir('tsdb-crash-shared-');
    try {
      const acked = await runAndKill(dir, minAcked, SHARED_CHILD);
      const open = async (): Promise<Tsdb[]> => Promise.all([0, 1].map((i) => Tsdb.open({
        dir: path.join(dir, `shard-${i}`), blockRangeMs: 60_000, openWal: (d) => PromWal.open({ dir: d }),
        shared: { dir, shard: i, shards: 2, serve: true, writer: i === 0 },
      })));
      let dbs = await open();
      assert.ok(readdirSync(dir).some((n) => ULID_RE.test(n)), 'shared blocks were written before the kill');
      assert.ok(checkShards(dbs) >= acked, 'every acknowledged sample after the restart');
      // The next pass leaves one block per range and no part.
      const shared = new SharedBlocks({ dir, blockRangeMs: 60_000, maxBlockDurationMs: 540_000, now: Date.now });
      await maintainShared(shared);
      shared.close();
      for (const d of dbs) await d.close();
      dbs = await open();
      assert.ok(checkShards(dbs) >= acked, 'and after the merge pass');
      for (let i = 0; i < 2; i++) assert.deepEqual(readdirSync(path.join(dir, `shard-${i}`)).filter((n) => ULID_RE.test(n)), []);
      const rs = readdirSync(dir).filter((n) => ULID_RE.test(n)).map((n) => JSON.parse(readFileSync(path.join(dir, n, 'meta.json'), 'utf8')) as { minTime: number; maxTime: number }).sort((a, b) => a.minTime - b.minTime);
      for (let i = 1; i < rs.length; i++) assert.ok(rs[i].minTime >= rs[i - 1].maxTime, 'shared blocks do not overlap');
      for (const d of dbs) await d.close();
    } finally { cleanup(); }
  });
}
