import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MemoryKv } from './kv.ts';
import { IndexSpace, Space } from './space.ts';
import { TimerWheel, dueKey } from './timer-wheel.ts';

test('IndexSpace.scan merges uncommitted and committing changes over the committed keys (model check)', async () => {
  await fc.assert(fc.asyncProperty(
    fc.array(fc.tuple(fc.constantFrom('add', 'remove', 'take', 'commit'), fc.integer({ min: 0, max: 30 })), { maxLength: 80 }),
    fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 40 }),
    async (ops, lo, hi, limit) => {
      const kv = new MemoryKv();
      const ix = new IndexSpace('ix', kv);
      const model = new Set<string>();
      const key = (n: number) => `k${String(n).padStart(2, '0')}`;
      let inFlight: Parameters<MemoryKv['commit']>[0] | null = null;
      for (const [op, n] of ops) {
        if (op === 'add') { ix.add(key(n)); model.add(key(n)); }
        if (op === 'remove') { ix.remove(key(n)); model.delete(key(n)); }
        if (op === 'take' && inFlight === null) { inFlight = []; ix.takeWrites(inFlight); }
        if (op === 'commit' && inFlight !== null) { await kv.commit(inFlight); ix.committed(); inFlight = null; }
      }
      const [a, b] = [key(Math.min(lo, hi)), key(Math.max(lo, hi))];
      const want = [...model].filter((k) => k >= a && k < b).sort().slice(0, limit);
      assert.deepEqual(ix.scan(a, b, limit), want);
      for (let n = 0; n <= 30; n++) assert.equal(ix.has(key(n)), model.has(key(n)));
    },
  ), { numRuns: 300 });
});

test('Space keeps at most `capacity` clean records cached; dirty and committing ones stay readable', async () => {
  const kv = new MemoryKv();
  const s = new Space<{ n: number }>('s', kv, 3);
  for (let i = 0; i < 10; i++) s.set(`k${i}`, { n: i });
  assert.ok(s.cached <= 3, `${s.cached} records cached`);
  const big = new Space<number>('b', kv, 100);
  for (let i = 0; i < 1000; i++) { big.set(`k${i}`, i); big.get(`k${i >> 1}`); }
  assert.ok(big.cached <= 100 && big.cached >= 50, `${big.cached} records cached with capacity 100`);
  assert.equal(s.get('k0')!.n, 0, 'evicted from the cache but dirty: still served');
  const w: Parameters<MemoryKv['commit']>[0] = [];
  s.takeWrites(w);
  const held = s.get('k1')!;
  held.n = 100; // mutated after the snapshot: belongs to the next commit
  assert.equal(s.get('k1')!.n, 100, 'committing records are served from memory');
  await kv.commit(w);
  s.committed();
  assert.equal(s.get('k2')!.n, 2, 'read back from the backend');
  assert.equal((kv.get('s', 'k1') as { n: number }).n, 1, 'the commit holds the value as of takeWrites');
});

test('TimerWheel keeps a bounded window in memory and yields every due timer in fire order', () => {
  const kv = new MemoryKv();
  const due = new IndexSpace('due', kv);
  const wheel = new TimerWheel(due, 8);
  const fireAts: number[] = [];
  for (let i = 0; i < 200; i++) { const at = (i * 7919) % 1000; fireAts.push(at); wheel.schedule(at, `t${String(i).padStart(3, '0')}`); }
  let max = 0;
  const seen: number[] = [];
  for (let i = 0; i < 100; i++) {
    const at = wheel.peekAt();
    seen.push(at);
    due.remove(dueKey(at, wheel.peekId()!));
    wheel.pop();
    // Scheduling into the loaded window while draining must not grow the heap without bound.
    wheel.schedule(at + 1, `n${i}`);
    fireAts.push(at + 1);
    max = Math.max(max, wheel.inMemory);
  }
  const want = [...fireAts].sort((a, b) => a - b).slice(0, 100);
  assert.deepEqual(seen, want);
  assert.ok(max <= 17, `heap stayed within two chunks (max ${max})`);
});
