/** WAL recovery: torn tails are truncated with a warning, damage inside the log is reported or repaired. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, open, readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Wal } from '../../src/engine/wal/index.ts';
import { CorruptionError, FormatVersionError } from '../../src/engine/errors.ts';
import { payloadFor, prng, replayAll, tempDir, type Replayed } from './helpers.ts';

/** Writes `n` records of 100..400 bytes (ids 0..n-1) and returns them as replayed (with positions). */
async function fill(dir: string, n: number, segmentSizeBytes: number, compress = false): Promise<Replayed[]> {
  const rnd = prng(n);
  const wal = await Wal.open({ dir, segmentSizeBytes, compress });
  for (let i = 0; i < n; i += 10) {
    await Promise.all(Array.from({ length: Math.min(10, n - i) }, (_, k) =>
      wal.append(1 + ((i + k) % 5), payloadFor(i + k, 100 + Math.floor(rnd() * 300), rnd, compress))));
  }
  await wal.close();
  const { recs } = await replayAll({ dir });
  assert.equal(recs.length, n);
  return recs;
}

const seg = (dir: string, n: number) => join(dir, String(n).padStart(8, '0'));

async function flipByte(file: string, offset: number, xor = 0x40): Promise<void> {
  const fh = await open(file, 'r+');
  const b = Buffer.alloc(1);
  await fh.read(b, 0, 1, offset);
  b[0] ^= xor;
  await fh.write(b, 0, 1, offset);
  await fh.close();
}

function ids(recs: Replayed[]): number[] {
  return recs.map((r) => r.payload.readUInt32BE(0));
}

// Each case damages the tail of the last segment; every complete record before the damage must come back.
const tornTails: { name: string; damage: (file: string, size: number) => Promise<void>; lost: number }[] = [
  { name: 'cut mid-payload', damage: (f, size) => truncate(f, size - 5), lost: 1 },
  { name: 'cut mid-header', damage: async (f, size) => { await appendFile(f, Buffer.from([1, 0, 0])); void size; }, lost: 0 },
  { name: 'trailing zeros', damage: (f) => appendFile(f, Buffer.alloc(4096)), lost: 0 },
  { name: 'garbage tail', damage: (f) => appendFile(f, Buffer.from('half-written garbage that is no record')), lost: 0 },
  { name: 'last record checksum', damage: (f, size) => flipByte(f, size - 3), lost: 1 },
];

for (const c of tornTails) {
  test(`torn tail (${c.name}) is truncated with a warning and every complete record recovers`, async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const before = await fill(dir, 200, 16 * 1024);
      const last = before[before.length - 1].pos.segment;
      const file = seg(dir, last);
      const cleanSize = (await stat(file)).size;
      await c.damage(file, cleanSize);
      const { recs, warnings } = await replayAll({ dir });
      assert.deepEqual(ids(recs), ids(before).slice(0, before.length - c.lost));
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(warnings[0], /torn tail/);
      assert.ok(warnings[0].includes(file));
      const expectSize = c.lost ? before[before.length - 1].pos.offset : cleanSize;
      assert.equal((await stat(file)).size, expectSize, 'segment truncated at the last complete record');
      // Recovered log accepts new records and replays cleanly afterwards.
      const wal = await Wal.open({ dir });
      await wal.append(2, Buffer.from('after'));
      await wal.close();
      const again = await replayAll({ dir });
      assert.deepEqual(again.warnings, []);
      assert.equal(again.recs.length, recs.length + 1);
    } finally {
      await cleanup();
    }
  });
}

test('several torn records at the end of a large last write: all complete ones recover', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const wal = await Wal.open({ dir });
    await wal.appendBatch(Array.from({ length: 50 }, (_, i) => ({ type: 1, payload: payloadFor(i, 1000, prng(i)) })));
    await wal.close();
    const file = seg(dir, 0);
    const size = (await stat(file)).size;
    await truncate(file, size - 4500); // cuts into the 46th record
    const { recs, warnings } = await replayAll({ dir });
    assert.deepEqual(ids(recs), Array.from({ length: 45 }, (_, i) => i));
    assert.equal(warnings.length, 1);
  } finally {
    await cleanup();
  }
});

// Where inside record #k of a middle segment a byte is flipped; the error names that record's start.
const flips: { name: string; at: number; xor?: number }[] = [
  { name: 'payload byte', at: 9 + 20 },
  { name: 'length high byte', at: 1, xor: 0x10 },
  { name: 'length low byte', at: 4, xor: 0x01 },
  { name: 'type byte', at: 0, xor: 0x02 },
  { name: 'type byte to zero', at: 0, xor: 0xff },
  { name: 'checksum byte', at: 6 },
];

for (const c of flips) {
  test(`flipped ${c.name} mid-log is reported with segment and offset, and repaired with repair:true`, async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const before = await fill(dir, 300, 8 * 1024);
      const segs = (await readdir(dir)).length;
      assert.ok(segs >= 4);
      const victimIndex = before.findIndex((r) => r.pos.segment === 1) + 3;
      const victim = before[victimIndex];
      const file = seg(dir, victim.pos.segment);
      if (c.name === 'type byte to zero') {
        const b = Buffer.alloc(1);
        const fh = await open(file, 'r');
        await fh.read(b, 0, 1, victim.pos.offset);
        await fh.close();
        c.xor = b[0];
      }
      await flipByte(file, victim.pos.offset + c.at, c.xor);
      const err = await replayAll({ dir }).then(() => null, (e: unknown) => e);
      assert.ok(err instanceof CorruptionError, `want CorruptionError, got ${String(err)}`);
      assert.equal(err.file, file);
      assert.equal(err.offset, victim.pos.offset);
      assert.ok(err.message.includes(file) && err.message.includes(String(victim.pos.offset)), err.message);

      const repaired = await replayAll({ dir, repair: true });
      assert.deepEqual(ids(repaired.recs), ids(before).slice(0, victimIndex));
      assert.equal(repaired.warnings.length, 1);
      assert.match(repaired.warnings[0], /repair/);
      assert.deepEqual(await readdir(dir), ['00000000', '00000001']);
      const clean = await replayAll({ dir });
      assert.equal(clean.recs.length, victimIndex);
      assert.deepEqual(clean.warnings, []);
    } finally {
      await cleanup();
    }
  });
}

test('damage in the last segment followed by valid records is corruption, not a torn tail', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const before = await fill(dir, 100, 1 << 20, true);
    const victim = before[40];
    await flipByte(seg(dir, 0), victim.pos.offset + 12);
    const sizeBefore = (await stat(seg(dir, 0))).size;
    await assert.rejects(replayAll({ dir }), (e: unknown) => e instanceof CorruptionError && e.offset === victim.pos.offset);
    assert.equal((await stat(seg(dir, 0))).size, sizeBefore, 'nothing truncated without repair');
  } finally {
    await cleanup();
  }
});

test('segment headers: bad magic, unsupported version, missing segment, torn segment creation', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    await fill(dir, 60, 4096);
    const first = seg(dir, 0);
    const orig = await readFile(first);
    await writeFile(first, Buffer.concat([Buffer.from('NOPE'), orig.subarray(4)]));
    await assert.rejects(Wal.open({ dir }), (e: unknown) => e instanceof CorruptionError && e.file === first && e.offset === 0);
    await writeFile(first, Buffer.concat([orig.subarray(0, 4), Buffer.from([9]), orig.subarray(5)]));
    await assert.rejects(Wal.open({ dir }), (e: unknown) => e instanceof FormatVersionError && e.details.found === 9);
    await writeFile(first, orig);
    const names = (await readdir(dir)).sort();
    const middle = join(dir, names[2]);
    const middleBytes = await readFile(middle);
    await truncate(middle, 0);
    await writeFile(middle, middleBytes);
    // A last segment whose creation was torn (no header yet) is removed with a warning.
    const next = seg(dir, names.length);
    await writeFile(next, Buffer.alloc(3));
    const warnings: string[] = [];
    const wal = await Wal.open({ dir, onWarning: (m) => warnings.push(m) });
    await wal.close();
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /torn/);
    assert.deepEqual((await readdir(dir)).sort(), names);
    // A missing segment in the middle is reported (and dropped, with everything after it, on repair).
    const { rm } = await import('node:fs/promises');
    await rm(middle);
    await assert.rejects(Wal.open({ dir }), (e: unknown) => e instanceof CorruptionError && e.file === middle);
    const { recs, warnings: w2 } = await replayAll({ dir, repair: true });
    assert.equal(w2.length, 1);
    assert.deepEqual((await readdir(dir)).sort(), names.slice(0, 2));
    assert.ok(recs.length > 0);
  } finally {
    await cleanup();
  }
});
