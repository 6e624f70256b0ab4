/** WAL round trips: segment boundaries, group commit, snappy, cut/truncate, positions. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Wal, type WalPosition } from '../../src/engine/wal/index.ts';
import { InvalidArgumentError } from '../../src/engine/errors.ts';
import { FILE_HEADER_SIZE } from '../../src/engine/codec/format-ids.ts';
import { payloadFor, prng, replayAll, tempDir } from './helpers.ts';

test('many records round-trip across segment boundaries, in order, with their positions', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const rnd = prng(1);
    const wal = await Wal.open({ dir, segmentSizeBytes: 4096 });
    const want: { type: number; payload: Buffer; pos?: WalPosition }[] = [];
    for (let id = 0; id < 1500; id++) want.push({ type: 1 + (id % 127), payload: payloadFor(id, Math.floor(rnd() * 700), rnd) });
    // Mix concurrent single appends with appendBatch calls.
    for (let i = 0; i < want.length; i += 50) {
      const slice = want.slice(i, i + 50);
      if ((i / 50) % 3 === 2) {
        const first = await wal.appendBatch(slice);
        slice[0].pos = first;
      } else {
        const positions = await Promise.all(slice.map((r) => wal.append(r.type, r.payload)));
        positions.forEach((p, k) => { slice[k].pos = p; });
      }
    }
    const st = wal.stats();
    assert.equal(st.records, 1500);
    await wal.close();
    const files = (await readdir(dir)).sort();
    assert.ok(files.length > 20, `expected many segments, got ${files.length}`);
    assert.equal(st.segments, files.length);
    assert.match(files[0], /^\d{8}$/);
    for (const f of files.slice(0, -1)) assert.ok((await stat(join(dir, f))).size <= 4096, f);

    const { recs, warnings } = await replayAll({ dir });
    assert.deepEqual(warnings, []);
    assert.equal(recs.length, want.length);
    for (let i = 0; i < want.length; i++) {
      assert.equal(recs[i].type, want[i].type, `type of record ${i}`);
      assert.ok(recs[i].payload.equals(want[i].payload), `payload of record ${i}`);
      if (want[i].pos) assert.deepEqual(recs[i].pos, want[i].pos, `position of record ${i}`);
    }
    // Replay from a position starts at that record (inclusive).
    const from = recs[777].pos;
    const tail = await replayAll({ dir }, from);
    assert.equal(tail.recs.length, want.length - 777);
    assert.ok(tail.recs[0].payload.equals(want[777].payload));
  } finally {
    await cleanup();
  }
});

test('1,000 concurrent appends share few fsyncs and all replay in call order', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const wal = await Wal.open({ dir });
    const rnd = prng(2);
    const payloads = Array.from({ length: 1000 }, (_, id) => payloadFor(id, 100, rnd));
    const positions = await Promise.all(payloads.map((p) => wal.append(7, p)));
    // Appends issued from separate event-loop turns also coalesce while a batch is being written.
    const late: Promise<WalPosition>[] = [];
    for (let i = 0; i < 200; i++) {
      late.push(wal.append(8, payloadFor(1000 + i, 100, rnd)));
      if (i % 10 === 0) await new Promise((r) => setImmediate(r));
    }
    await Promise.all(late);
    const st = wal.stats();
    assert.equal(st.records, 1200);
    assert.ok(st.fsyncs < 100, `fsyncs = ${st.fsyncs}, expected far below the 1,200 appends`);
    for (let i = 1; i < positions.length; i++) assert.ok(positions[i].offset > positions[i - 1].offset);
    await wal.close();
    const { recs } = await replayAll({ dir });
    assert.equal(recs.length, 1200);
    for (let i = 0; i < 1200; i++) assert.equal(recs[i].payload.readUInt32BE(0), i);
  } finally {
    await cleanup();
  }
});

test('snappy on and off: same records back, compressed log is smaller, raw kept when snappy does not help', async () => {
  const sizes: Record<string, number> = {};
  for (const compress of [false, true]) {
    const { dir, cleanup } = await tempDir();
    try {
      const rnd = prng(3);
      const wal = await Wal.open({ dir, compress, segmentSizeBytes: 64 * 1024 });
      const want = Array.from({ length: 300 }, (_, id) => payloadFor(id, 2000, rnd, id % 3 !== 0));
      want.push(Buffer.alloc(0));
      await Promise.all(want.map((p) => wal.append(3, p)));
      sizes[String(compress)] = wal.stats().bytesWritten;
      await wal.close();
      // Reading does not depend on the compress option: the flag is per record.
      const { recs } = await replayAll({ dir, compress: !compress });
      assert.equal(recs.length, want.length);
      for (let i = 0; i < want.length; i++) assert.ok(recs[i].payload.equals(want[i]), `record ${i} compress=${compress}`);
    } finally {
      await cleanup();
    }
  }
  assert.ok(sizes.true < sizes.false * 0.6, `compressed ${sizes.true} vs raw ${sizes.false}`);
});

test('cut starts a new segment and truncateBefore drops the older ones', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const wal = await Wal.open({ dir });
    assert.deepEqual(wal.position(), { segment: 0, offset: 8 });
    for (let i = 0; i < 10; i++) await wal.append(1, Buffer.from(`old ${i}`));
    const cutAt = await wal.cut();
    assert.deepEqual(cutAt, { segment: 1, offset: 8 });
    assert.deepEqual(await wal.cut(), cutAt, 'cutting an empty segment is a no-op');
    for (let i = 0; i < 5; i++) await wal.append(2, Buffer.from(`new ${i}`));
    assert.equal(wal.stats().segments, 2);
    await wal.truncateBefore(cutAt);
    assert.equal(wal.stats().segments, 1);
    assert.deepEqual(await readdir(dir), ['00000001']);
    const seen: string[] = [];
    await wal.replay(null, (_t, p) => seen.push(Buffer.from(p).toString()));
    assert.deepEqual(seen, ['new 0', 'new 1', 'new 2', 'new 3', 'new 4']);
    await wal.close();
    // A reopened WAL writes into a fresh segment after the existing ones.
    const again = await Wal.open({ dir });
    assert.deepEqual(again.position(), { segment: 2, offset: 8 });
    await again.append(1, Buffer.from('after restart'));
    await again.close();
    const { recs } = await replayAll({ dir });
    assert.equal(recs.length, 6);
    assert.equal(recs[5].payload.toString(), 'after restart');
  } finally {
    await cleanup();
  }
});

test('invalid record types and payloads are rejected', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const wal = await Wal.open({ dir });
    for (const t of [0, 128, -1, 1.5, NaN]) {
      await assert.rejects(wal.append(t, Buffer.from('x')), InvalidArgumentError, `type ${t}`);
    }
    await assert.rejects(wal.append(1, 'str' as unknown as Uint8Array), InvalidArgumentError);
    assert.equal(wal.stats().records, 0);
    await wal.close();
    await assert.rejects(wal.append(1, Buffer.from('x')), /closed/);
  } finally {
    await cleanup();
  }
});

test('preallocated segments: zeros are written ahead of the records, trimmed when a segment closes, and a crash\'s zero tail is dropped on replay', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const wal = await Wal.open({ dir, segmentSizeBytes: 16384, preallocateBytes: 4096 });
    const payloads = Array.from({ length: 60 }, (_, i) => Buffer.alloc(300 + i, i + 1));
    for (const p of payloads.slice(0, 40)) await wal.append(7, p);
    const live = (await readdir(dir)).sort();
    const lastFile = join(dir, live[live.length - 1]);
    assert.equal(((await stat(lastFile)).size - FILE_HEADER_SIZE) % 4096, 0, 'the segment being written ends at a preallocation boundary');
    for (const f of live.slice(0, -1)) assert.notEqual(((await stat(join(dir, f))).size - FILE_HEADER_SIZE) % 4096, 0, `closed segment ${f} was trimmed`);
    // A crash: the process stops without closing; the live segment still ends in zeros.
    const crashed = await replayAll({ dir });
    assert.deepEqual(crashed.recs.map((r) => r.payload.length), payloads.slice(0, 40).map((p) => p.length));
    assert.equal(crashed.warnings.length, 1, 'the zero tail is reported as a torn tail');
    await wal.close().catch(() => undefined);

    const wal2 = await Wal.open({ dir, segmentSizeBytes: 16384, preallocateBytes: 4096, onWarning: () => undefined });
    await wal2.replay(null, () => undefined);
    for (const p of payloads.slice(40)) await wal2.append(7, p);
    await wal2.close();
    const { recs, warnings } = await replayAll({ dir });
    assert.deepEqual(warnings, [], 'a clean close leaves no zeros');
    assert.deepEqual(recs.map((r) => r.payload.length), payloads.map((p) => p.length));
  } finally {
    await cleanup();
  }
});
