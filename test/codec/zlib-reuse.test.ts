import { test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { deflateRawTransient, gzipTransient, inflateRawPrefix, inflateRawTransient } from '../../src/engine/codec/zlib-reuse.ts';
import { mulberry32 } from '../../bench/support/mulberry32.ts';

/** Text-like bytes (compressible) or random bytes (not), of `n` bytes. */
function sample(n: number, seed: number, text: boolean): Uint8Array {
  const r = mulberry32(seed), b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = text ? (r() < 0.15 ? 32 : 97 + Math.floor(r() * r() * 26)) : Math.floor(r() * 256);
  return b;
}

test('the reused streams give the one-shot functions\' bytes, at every size and across calls', () => {
  // Sizes around the reused buffer (64 KiB): larger outputs take the one-shot path.
  for (const [i, n] of [0, 1, 100, 8192, 9000, 16384, 65535, 65536, 70000, 300000].entries()) {
    for (const text of [true, false]) {
      const raw = sample(n, i + 1, text);
      for (const level of [1, 6]) {
        const packed = Buffer.from(deflateRawTransient(raw, level));
        assert.deepEqual(packed, zlib.deflateRawSync(raw, { level }), `deflate ${n} bytes, text ${text}, level ${level}`);
        assert.deepEqual(Buffer.from(inflateRawTransient(packed)), Buffer.from(raw), `inflate ${n} bytes`);
        const gz = Buffer.from(gzipTransient(raw, level));
        assert.deepEqual(gz, zlib.gzipSync(raw, { level }), `gzip ${n} bytes, level ${level}`);
        assert.deepEqual(zlib.gunzipSync(gz), Buffer.from(raw));
      }
    }
  }
});

test('malformed and truncated streams throw zlib\'s error, and the next block inflates', () => {
  const raw = sample(8192, 7, true);
  const packed = zlib.deflateRawSync(raw, { level: 1 });
  const flipped = Buffer.from(packed);
  flipped[3] ^= 0xff;
  assert.throws(() => inflateRawTransient(flipped), /Z_DATA_ERROR|invalid/);
  assert.throws(() => inflateRawTransient(packed.subarray(0, packed.length >> 1)), /unexpected end of file/);
  assert.throws(() => inflateRawTransient(Uint8Array.of(0xff, 0xff, 0xff)), /invalid/);
  assert.deepEqual(Buffer.from(inflateRawTransient(packed)), Buffer.from(raw));
});

test('a prefix inflate stops where its reader says, gives the stream\'s first bytes, and says when it ended', () => {
  for (const [i, n] of [0, 1, 2047, 2048, 2049, 8192, 20000, 65536, 70000].entries()) {
    const raw = sample(n, 40 + i, true);
    const packed = zlib.deflateRawSync(raw, { level: 1 });
    for (const want of [1, 2048, 5000, n]) {
      let asked = 0;
      const { out, complete } = inflateRawPrefix(packed, 2048, (o, len) => { asked++; assert.ok(len % 2048 === 0 && len > 0); return len >= want; });
      const got = Buffer.from(out);
      assert.deepEqual(got, Buffer.from(raw.subarray(0, got.byteLength)), `${n} bytes, want ${want}: a prefix`);
      if (complete) assert.equal(got.byteLength, n, `${n} bytes, want ${want}: complete means whole`);
      else assert.ok(got.byteLength >= want && got.byteLength < want + 2048 && got.byteLength < n + 1, `${n} bytes, want ${want}: stopped at ${got.byteLength} after ${asked} asks`);
      // Past the reused buffer the whole stream is inflated at once.
      if (n > 65536) assert.ok(complete || got.byteLength <= 65536);
    }
    // The stream is reset between calls: the next full inflate is right.
    assert.deepEqual(Buffer.from(inflateRawTransient(packed)), Buffer.from(raw));
  }
  const packed = zlib.deflateRawSync(sample(9000, 3, true));
  assert.throws(() => inflateRawPrefix(packed.subarray(0, packed.byteLength >> 1), 2048, () => false), /unexpected end/i);
  assert.throws(() => inflateRawPrefix(Buffer.from([0xff, 0xff, 0xff, 0xff]), 2048, () => false));
  assert.deepEqual(Buffer.from(inflateRawTransient(packed)), zlib.inflateRawSync(packed));
});
