import { test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { deflateRawTransient, gzipTransient, inflateRawTransient } from '../../src/engine/codec/zlib-reuse.ts';
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
