/** `gzipInPieces` writes one gzip member whose DEFLATE stream, inflated, is the input. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { gzipInPieces } from './gzip-pieces.ts';

/** Text like a range query's answer (repeats within and across pieces) with random bytes mixed in. */
function input(bytes: number, seed: number): Buffer {
  let s = seed;
  const rnd = (): number => { s = (Math.imul(s, 1103515245) + 12345) >>> 0; return s / 2 ** 32; };
  const out = Buffer.alloc(bytes);
  for (let i = 0; i < bytes;) {
    if (rnd() < 0.2) { out[i++] = Math.floor(rnd() * 256); continue; }
    const line = Buffer.from(`[${1700000000 + Math.floor(rnd() * 1000)},"${(rnd() * 100).toFixed(3)}"],`);
    i += line.copy(out, i);
  }
  return out;
}

/** The parts of a gzip member without optional header fields: its DEFLATE stream, CRC-32 and length. */
function member(gz: Buffer): { deflate: Buffer; crc: number; size: number } {
  assert.deepEqual([...gz.subarray(0, 4)], [0x1f, 0x8b, 8, 0]);
  return { deflate: gz.subarray(10, gz.length - 8), crc: gz.readUInt32LE(gz.length - 8), size: gz.readUInt32LE(gz.length - 4) };
}

test('pieces at several levels and counts give one member that inflates to the input', async () => {
  for (const [bytes, pieces, level] of [[1, 2, 1], [100_000, 2, 1], [100_001, 3, 3], [1_000_003, 4, 6], [3_000_000, 2, 9], [65_536, 7, 1]] as const) {
    const data = input(bytes, bytes + pieces);
    const gz = Buffer.concat(await gzipInPieces(data, level, pieces));
    const m = member(gz);
    // One DEFLATE stream (the pieces joined), not several members that gunzip would also accept.
    assert.ok(zlib.inflateRawSync(m.deflate).equals(data), `${bytes} bytes in ${pieces} pieces at level ${level}`);
    assert.equal(m.crc, zlib.crc32(data) >>> 0);
    assert.equal(m.size, bytes);
    assert.ok(zlib.gunzipSync(gz).equals(data));
  }
});

test('a piece refers back into the piece before it (primed with its last 32 KiB)', async () => {
  // Random bytes, then the same bytes again: the second piece is one long match into the first.
  const block = randomBytes(30_000);
  const data = Buffer.concat([block, block]);
  const gz = Buffer.concat(await gzipInPieces(data, 1, 2));
  assert.ok(zlib.gunzipSync(gz).equals(data));
  assert.ok(gz.length < block.length + 2_000, `${gz.length} bytes for ${data.length}`);
});

test('a small input is one zlib gzip', async () => {
  const data = input(10_000, 3);
  assert.ok(Buffer.concat(await gzipInPieces(data, 3)).equals(zlib.gzipSync(data, { level: 3 })));
});

test('an input in many buffers gives the same stream as the buffers joined, its pieces primed across buffers', async () => {
  const data = input(2_000_000, 7);
  // Buffers of uneven sizes, from a few bytes to more than a gathered write, and empty ones between.
  const parts: Buffer[] = [];
  for (let at = 0, k = 0; at < data.length; k++) {
    const size = [3, 0, 70_000, 1_000, 17, 200_000, 40_000][k % 7];
    parts.push(data.subarray(at, Math.min(data.length, at + size)));
    at += size;
  }
  for (const pieces of [1, 2, 3, 5]) {
    const gz = await gzipInPieces(parts, 1, pieces);
    const joined = Buffer.concat(gz);
    assert.ok(zlib.inflateRawSync(member(joined).deflate).equals(data), `${pieces} pieces`);
    assert.equal(member(joined).crc, zlib.crc32(data) >>> 0);
    // Same pieces, same priming: the bytes equal those of the joined input compressed in as many pieces.
    assert.ok(joined.equals(Buffer.concat(await gzipInPieces([data], 1, pieces))), `${pieces} pieces, joined input`);
  }
  // A dictionary spanning buffers: the second piece repeats the 30 KB before it, which sits in 10 buffers.
  const block = randomBytes(30_000);
  const spread = [...Array.from({ length: 10 }, (_, i) => block.subarray(i * 3_000, (i + 1) * 3_000)), block];
  const gz = Buffer.concat(await gzipInPieces(spread, 1, 2));
  assert.ok(zlib.gunzipSync(gz).equals(Buffer.concat([block, block])));
  assert.ok(gz.length < block.length + 2_000, `${gz.length} bytes for ${2 * block.length}`);
});

test('an empty input is an empty gzip member', async () => {
  assert.equal(zlib.gunzipSync(Buffer.concat(await gzipInPieces([], 1))).length, 0);
  assert.equal(zlib.gunzipSync(Buffer.concat(await gzipInPieces([Buffer.alloc(0)], 1, 3))).length, 0);
});
