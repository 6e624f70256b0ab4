/** The head's chunk slab: bytes equal to a standalone appender's, slot growth, reuse and zeroing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChunkSlab, SLOT_BYTES, SlabXorAppender } from './chunk-slab.ts';
import { XorAppender, decodeXor } from './xor-chunk.ts';

/** Seeded LCG in [0, 1). */
function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => { x = (Math.imul(x, 1664525) + 1013904223) >>> 0; return x / 2 ** 32; };
}

const F = new Float64Array(1), U = new Uint32Array(F.buffer);

/** One series' writer state kept outside the appender, as the head keeps it. */
interface Kept { addr: number; bits: number; count: number; t: number; tDelta: number; hi: number; lo: number; window: number }

test('chunk slab: interleaved chunks appended through one slab appender equal standalone appenders, byte for byte', () => {
  const slab = new ChunkSlab();
  const app = new SlabXorAppender(slab);
  const next = rng(7);
  const N = 40;
  const ref = Array.from({ length: N }, () => new XorAppender());
  const kept: Kept[] = Array.from({ length: N }, () => ({ addr: slab.alloc(32), bits: 16, count: 0, t: 0, tDelta: 0, hi: 0, lo: 0, window: 0xff00 }));
  const t = new Array<number>(N).fill(1_700_000_000_000);
  const moved = new Set<number>();
  for (let i = 0; i < 120; i++) {
    for (let s = 0; s < N; s++) {
      // Series 0–9 change wildly (worst-case buckets, random doubles), the others like counters with jitter.
      t[s] += s < 10 ? Math.floor(next() * 2 ** 40) : 1000 + Math.floor(next() * 20);
      const v = s < 10 ? (next() - 0.5) * 2 ** (next() * 600 - 300) : i * 3 + s;
      ref[s].append(t[s], v);
      const k = kept[s];
      app.resumeAt(k.addr, k.bits, k.count, k.t, k.tDelta, k.hi, k.lo, k.window >>> 8, k.window & 0xff);
      app.append(t[s], v);
      if (app.addr !== k.addr) moved.add(s);
      F[0] = v;
      Object.assign(k, { addr: app.addr, bits: app.bits, count: app.count, t: t[s], tDelta: app.tDelta, hi: U[1] | 0, lo: U[0] | 0, window: (app.leading << 8) | app.trailing });
    }
  }
  for (let s = 0; s < N; s++) {
    const got = slab.copy(kept[s].addr, (kept[s].bits + 7) >>> 3);
    assert.deepEqual(got, ref[s].bytes(), `series ${s}`);
    const ts = new Float64Array(120), vs = new Float64Array(120);
    assert.equal(decodeXor(got, ts, vs), 120);
  }
  assert.equal(moved.size, N, 'every chunk outgrew its first slot');
  assert.ok(slab.sizeOf(kept[0].addr) > slab.sizeOf(kept[20].addr), 'wild samples took a larger class');
});

test('chunk slab: freed slots are reused by their class and handed out zeroed; byte counts follow', () => {
  const slab = new ChunkSlab();
  const a = slab.alloc(30), b = slab.alloc(32), c = slab.alloc(100);
  assert.equal(slab.sizeOf(a), 32);
  assert.equal(slab.sizeOf(c), 128);
  assert.equal(slab.slotBytes, 32 + 32 + 128);
  slab.view(a, 32).fill(0xab);
  slab.release(a);
  assert.equal(slab.slotBytes, 32 + 128);
  const again = slab.alloc(20);
  assert.equal(again, a, 'the freed 32-byte slot comes back');
  assert.deepEqual([...slab.view(again, 32)], new Array(32).fill(0), 'zeroed');
  assert.notEqual(slab.alloc(32), b);
  const pages = slab.pageBytes;
  // Churn: chunks of one class come and go without new pages.
  for (let round = 0; round < 10; round++) {
    const addrs = Array.from({ length: 500 }, () => slab.alloc(60));
    for (const x of addrs) slab.release(x);
  }
  assert.equal(slab.pageBytes, pages + 65536, 'one page for the 64-byte class, reused by every round');
  assert.throws(() => slab.alloc(SLOT_BYTES[SLOT_BYTES.length - 1] + 1), RangeError);
});

test('chunk slab: grow keeps the bytes and frees the old slot', () => {
  const slab = new ChunkSlab();
  const a = slab.alloc(32);
  slab.view(a, 32).set(Array.from({ length: 32 }, (_, i) => i + 1));
  const b = slab.grow(a, 20, 33);
  assert.equal(slab.sizeOf(b), 48);
  assert.deepEqual([...slab.view(b, 24)], [...Array.from({ length: 20 }, (_, i) => i + 1), 0, 0, 0, 0]);
  assert.equal(slab.slotBytes, 48);
  assert.equal(slab.alloc(32), a);
});
