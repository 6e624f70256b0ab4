/**
 * The TSDB WAL on disk (src/engine/tsdb/prom-wal.ts): segment rotation, replay, torn-tail truncation at the
 * first damaged record of the last segment, corruption in earlier segments, checkpoints as directories that
 * are WALs, and a shard (Tsdb) cutting a block and reopening over it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PromWal, type PromWalOptions } from '../../src/engine/tsdb/prom-wal.ts';
import { noWalCounts } from '../../src/engine/tsdb/wal-port.ts';
import { FragmentEncoder } from '../../src/engine/tsdb/prom-wal-pages.ts';
import { Tsdb } from '../../src/engine/tsdb/index.ts';
import { tick } from '../../src/engine/tsdb/db-maintenance.ts';
import { MATCH_REGEXP, newMatcher } from '../../src/engine/tsdb/api.ts';
import { batch, tempDir, TestClock } from './support/db.ts';

const PAGE = 32768;
const rec = (i: number, len = 100): Uint8Array => Uint8Array.from({ length: len }, (_, k) => (k === 0 ? 200 : (i * 7 + k) & 0xff));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

async function replayAll(opts: PromWalOptions): Promise<{ recs: string[]; warnings: string[]; wal: PromWal }> {
  const warnings: string[] = [];
  const wal = await PromWal.open({ ...opts, onWarning: (m) => warnings.push(m) });
  const recs: string[] = [];
  await wal.replay((r) => { recs.push(hex(r)); });
  return { recs, warnings, wal };
}

async function writeRecords(opts: PromWalOptions, recs: Uint8Array[], perBatch = 1): Promise<void> {
  const wal = await PromWal.open(opts);
  for (let i = 0; i < recs.length; i += perBatch) await wal.log(recs.slice(i, i + perBatch));
  await wal.close();
}

const segs = (dir: string): string[] => readdirSync(dir).filter((n) => /^\d{8}$/.test(n)).sort();

test('records fill 32 KiB pages of 64 KiB segments, are never split across segments, and replay in order', async () => {
  const { dir, cleanup } = tempDir('prom-wal-');
  try {
    const opts = { dir, segmentSizeBytes: 2 * PAGE, compress: false };
    const recs = Array.from({ length: 40 }, (_, i) => rec(i, 1000 + i * 97));
    await writeRecords(opts, recs, 3);
    const names = segs(dir);
    assert.ok(names.length >= 2, `several segments: ${names}`);
    assert.equal(names[0], '00000000');
    for (const n of names) assert.equal(statSync(path.join(dir, n)).size % PAGE, 0, `${n} ends on a page boundary (closed segments are padded)`);
    const { recs: got, warnings, wal } = await replayAll(opts);
    assert.deepEqual(got, recs.map(hex));
    assert.deepEqual(warnings, []);
    await wal.close();
    assert.equal(segs(dir).length, names.length + 1, 'each open starts a new segment, as Prometheus does');
    const big = rec(1, 3 * PAGE);
    await writeRecords(opts, [big]);
    const { recs: again, wal: w2 } = await replayAll(opts);
    assert.deepEqual(again, [...recs, big].map(hex), 'a record larger than a segment gets a larger segment');
    await w2.close();
  } finally { cleanup(); }
});

test('compressed records: stored with the snappy flag when it shrinks them, replayed as written', async () => {
  const { dir, cleanup } = tempDir('prom-wal-');
  try {
    const opts = { dir, compress: true };
    const recs = [new Uint8Array(5000).fill(3), rec(1, 10), new Uint8Array(70000).fill(9)];
    await writeRecords(opts, recs, 3);
    const b = readFileSync(path.join(dir, '00000000'));
    assert.equal(b[0], 0x09, 'full fragment with the snappy flag');
    assert.ok(b.length < PAGE * 2);
    const { recs: got, wal } = await replayAll(opts);
    assert.deepEqual(got, recs.map(hex));
    await wal.close();
  } finally { cleanup(); }
});

/** Table: damage to the last segment → records that survive (all written before were acknowledged). */
const TORN: { name: string; damage: (file: string, size: number, starts: number[]) => void; kept: number }[] = [
  { name: 'cut inside the last record', damage: (f, size) => truncateSync(f, size - 10), kept: 4 },
  { name: 'cut inside a record spanning pages', damage: (f, _s, st) => truncateSync(f, st[4] - PAGE / 2), kept: 3 },
  { name: 'flipped byte in the last record', damage: (f, size) => { const b = readFileSync(f); b[size - 5] ^= 1; writeFileSync(f, b); }, kept: 4 },
  { name: 'half-written header after the last record', damage: (f) => appendFileSync(f, Buffer.from([1, 0])), kept: 5 },
  { name: 'trailing zeros', damage: (f) => appendFileSync(f, Buffer.alloc(5000)), kept: 5 },
];

for (const c of TORN) {
  test(`torn tail is truncated at the first damaged record: ${c.name}`, async () => {
    const { dir, cleanup } = tempDir('prom-wal-');
    try {
      const opts = { dir, compress: false };
      const recs = [rec(0), rec(1), rec(2), rec(3, PAGE + 500), rec(4, 300)];
      await writeRecords(opts, recs);
      // Where each record starts (the writer lays them out as the encoder does); a crash leaves the segment
      // unpadded, so the padding written at close is dropped first, and an empty next segment is left as
      // an open that crashed before its replay would leave it.
      const starts = [0, 1, 2, 3, 4, 5].map((k) => encodedLength(recs.slice(0, k)));
      const file = path.join(dir, '00000000');
      truncateSync(file, starts[5]);
      writeFileSync(path.join(dir, '00000001'), '');
      c.damage(file, starts[5], starts);
      const { recs: got, warnings, wal } = await replayAll(opts);
      assert.deepEqual(got, recs.slice(0, c.kept).map(hex));
      assert.equal(wal.stats().counts.corruptions, warnings.length, 'each torn tail truncated counts as a WAL corruption, as in Prometheus');
      if (c.kept < recs.length) {
        assert.equal(warnings.length, 1);
        assert.match(warnings[0], /torn tail/);
        assert.equal(statSync(file).size, starts[c.kept], 'truncated where the damaged record starts');
      }
      await wal.log([rec(9)]);
      await wal.close();
      const again = await replayAll(opts);
      assert.deepEqual(again.recs, [...recs.slice(0, c.kept), rec(9)].map(hex));
      assert.deepEqual(again.warnings, []);
      await again.wal.close();
    } finally { cleanup(); }
  });
}

function encodedLength(recs: Uint8Array[]): number {
  const e = new FragmentEncoder();
  for (const r of recs) e.append(r, false);
  return e.used;
}

/** A WAL in `dir` of 12 records of 10,000 bytes over one-page segments: at least four segment files. */
async function fourSegments(dir: string): Promise<{ opts: { dir: string; compress: boolean; segmentSizeBytes: number }; names: string[] }> {
  const opts = { dir, compress: false, segmentSizeBytes: PAGE };
  await writeRecords(opts, Array.from({ length: 12 }, (_, i) => rec(i, 10_000)));
  const names = segs(dir);
  assert.ok(names.length >= 4);
  return { opts, names };
}

test('damage in an earlier segment is a CorruptionError naming file and offset; repair truncates and drops later segments', async () => {
  const { dir, cleanup } = tempDir('prom-wal-');
  try {
    const { opts, names } = await fourSegments(dir);
    const f1 = path.join(dir, names[1]);
    const b = readFileSync(f1);
    b[20] ^= 0xff;
    writeFileSync(f1, b);
    const wal = await PromWal.open(opts);
    await assert.rejects(wal.replay(() => {}), (err: Error & { details?: { file: string; offset: number } }) => {
      assert.equal(err.details?.file, f1);
      assert.equal(err.details?.offset, 0);
      return true;
    });
    await wal.close();
    const { recs, warnings, wal: w2 } = await replayAll({ ...opts, repair: true });
    assert.equal(recs.length, 3, 'the records of segment 0');
    assert.match(warnings[0], /repair/);
    assert.equal(statSync(f1).size, 0);
    assert.ok(segs(dir).every((n) => n <= names[1] || Number(n) > Number(names[names.length - 1])), 'later segments deleted');
    await w2.close();
  } finally { cleanup(); }
});

test('a deleted segment in the middle is a CorruptionError naming the missing file, not a silent gap (issue 16 §4)', async () => {
  const { dir, cleanup } = tempDir('prom-wal-');
  try {
    const { opts, names } = await fourSegments(dir);
    const gone = path.join(dir, names[2]);
    rmSync(gone);
    const wal = await PromWal.open(opts);
    const seen: string[] = [];
    await assert.rejects(wal.replay((r) => { seen.push(hex(r)); }), (err: Error & { code?: string; details?: { file: string } }) => {
      assert.equal(err.code, 'CORRUPTION');
      assert.equal(err.details?.file, gone);
      assert.match(err.message, /WAL segment is missing/);
      return true;
    });
    assert.deepEqual(seen, [], 'nothing replayed past the gap unnoticed');
    await wal.close();
  } finally { cleanup(); }
});

test('checkpoint: checkpoint.N is a WAL of the given records covering segments ≤ N; older segments and checkpoints go', async () => {
  const { dir, cleanup } = tempDir('prom-wal-');
  try {
    const opts = { dir, compress: true };
    const wal = await PromWal.open(opts);
    await wal.log([rec(1), rec(2)]);
    await wal.checkpoint([rec(10), rec(11)]);
    await wal.log([rec(3)]);
    await wal.checkpoint([rec(20)]);
    await wal.log([rec(4)]);
    // Each checkpoint: a creation, the truncation of its segments, the deletion of older checkpoints.
    assert.deepEqual(wal.stats().counts, { ...noWalCounts(), checkpointsCreated: 2, truncations: 2, checkpointDeletions: 2 });
    await wal.close();
    assert.deepEqual(readdirSync(dir).sort(), ['00000002', 'checkpoint.00000001']);
    assert.deepEqual(readdirSync(path.join(dir, 'checkpoint.00000001')), ['00000000']);
    mkdirSync(path.join(dir, 'checkpoint.00000002.tmp'));
    const { recs, wal: w2 } = await replayAll(opts);
    assert.deepEqual(recs, [rec(20), rec(4)].map(hex));
    assert.equal(existsSync(path.join(dir, 'checkpoint.00000002.tmp')), false, 'an unfinished checkpoint is removed at open');
    await w2.close();
    assert.deepEqual(segs(dir), ['00000002', '00000003'], 'writing resumes after the last segment');
  } finally { cleanup(); }
});

test('a checkpoint whose records fail part-way counts as a failed creation, and nothing is truncated after it', async () => {
  const { dir, cleanup } = tempDir('prom-wal-');
  try {
    const wal = await PromWal.open({ dir, compress: false });
    await wal.log([rec(1)]);
    await assert.rejects(wal.checkpoint((function* () { yield rec(10); throw new Error('records failed'); })()), /records failed/);
    assert.deepEqual(wal.stats().counts, { ...noWalCounts(), checkpointsCreated: 1, checkpointCreationsFailed: 1 });
    await wal.close();
    const { recs, wal: again } = await replayAll({ dir, compress: false });
    assert.deepEqual(recs, [rec(1)].map(hex), 'the segment the failed checkpoint would have covered is still replayed');
    await again.close();
  } finally { cleanup(); }
});

test('a shard over the real WAL: block cut, checkpoint in wal/, reopen gives every sample back', async () => {
  const { dir, cleanup } = tempDir('prom-wal-db-');
  try {
    const H = 3_600_000;
    const clock = new TestClock();
    const open = (): Promise<Tsdb> => Tsdb.open({ dir, openWal: (d) => PromWal.open({ dir: d }), now: clock.now });
    const db = await open();
    for (let t = 0; t < 4 * H; t += 10 * 60_000) {
      const s: [Record<string, string>, number, number][] = [];
      for (let k = 0; k < 10; k++) for (let i = 0; i < 3; i++) s.push([{ __name__: 'm', i: String(i) }, t + k * 60_000, t + k + i]);
      await db.append(batch(s));
    }
    await db.deleteSeries([newMatcher(MATCH_REGEXP, 'i', '2')], 3 * H, 3 * H + 30 * 60_000);
    assert.equal((await tick(db)).blocksCut, 1);
    const walDir = path.join(dir, 'wal');
    assert.ok(readdirSync(walDir).some((n) => /^checkpoint\.\d{8}$/.test(n)));
    const want = db.select([newMatcher(MATCH_REGEXP, '__name__', 'm')], -Infinity, Infinity);
    await db.close();
    const db2 = await open();
    assert.deepEqual(db2.select([newMatcher(MATCH_REGEXP, '__name__', 'm')], -Infinity, Infinity), want);
    assert.equal(want[2].t.length, 4 * 60 - 31, 'the tombstone survived the checkpoint');
    await db2.close();
  } finally { cleanup(); }
});

test('crash states of a checkpoint: unfinished .tmp is ignored; old segments and checkpoints left after the rename are not replayed', async () => {
  const { dir: root, cleanup } = tempDir('prom-wal-cp-crash-');
  try {
    const dir = path.join(root, 'wal'), backup = path.join(root, 'backup');
    const opts = { dir, compress: false };
    const wal = await PromWal.open(opts);
    await wal.log([rec(1)]);
    await wal.checkpoint([rec(10)]);
    await wal.log([rec(2)]);
    await wal.close();
    cpSync(dir, backup, { recursive: true });
    // Crash during the next checkpoint: its .tmp directory is half-written.
    mkdirSync(path.join(dir, 'checkpoint.00000002.tmp'));
    writeFileSync(path.join(dir, 'checkpoint.00000002.tmp', '00000000'), Buffer.from([1, 0, 5]));
    const a = await replayAll(opts);
    assert.deepEqual(a.recs, [rec(10), rec(2)].map(hex));
    // Crash after the rename of the next checkpoint, before older segments and checkpoints were deleted.
    await a.wal.checkpoint([rec(20)]);
    await a.wal.close();
    for (const n of readdirSync(backup)) if (!existsSync(path.join(dir, n))) cpSync(path.join(backup, n), path.join(dir, n), { recursive: true });
    assert.ok(readdirSync(dir).includes('checkpoint.00000000'));
    const b = await replayAll(opts);
    assert.deepEqual(b.recs, [rec(20)].map(hex), 'only the newest checkpoint and the segments after it');
    await b.wal.checkpoint([rec(30)]);
    await b.wal.close();
    assert.deepEqual(readdirSync(dir).sort(), ['00000005', 'checkpoint.00000004']);
  } finally { cleanup(); }
});
