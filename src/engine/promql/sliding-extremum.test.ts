/** The sliding max/min equals 2.42's per-window scan on random windows, NaNs and signed zeros included. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SlidingExtremum } from './sliding-extremum.ts';

function scan(v: ArrayLike<number>, lo: number, hi: number, isMax: boolean): number {
  let m = v[lo];
  for (let i = lo; i < hi; i++) if ((isMax ? v[i] > m : v[i] < m) || Number.isNaN(m)) m = v[i];
  return m;
}

test('sliding max/min match the rescanning loop', () => {
  let seed = 7;
  const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const pick = [NaN, 0, -0, 1, -1, 2, 2, 5, -Infinity, Infinity];
  for (let round = 0; round < 300; round++) {
    const n = 1 + Math.floor(rnd() * 60);
    const v = new Float64Array(n);
    for (let i = 0; i < n; i++) v[i] = rnd() < 0.5 ? pick[Math.floor(rnd() * pick.length)] : Math.floor(rnd() * 10);
    for (const isMax of [true, false]) {
      const ext = new SlidingExtremum(isMax);
      ext.reset(n);
      let lo = 0, hi = 0;
      while (hi < n) {
        hi = Math.min(n, hi + Math.floor(rnd() * 4));
        lo = Math.min(hi, lo + Math.floor(rnd() * 4));
        if (rnd() < 0.2) lo = Math.max(0, hi - 1);
        if (hi === lo) { hi++; if (hi > n) break; }
        const got = ext.at(v, lo, hi), want = scan(v, lo, hi, isMax);
        assert.ok(Object.is(got, want), `${isMax ? 'max' : 'min'} [${lo},${hi}) of ${Array.from(v).join(',')}: got ${got}, want ${want}`);
      }
    }
  }
});
