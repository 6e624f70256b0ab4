import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NumericDocValues, OrdinalDocValues } from './segment.ts';

const terms = { size: 2, term: (o: number) => ['a', 'b'][o] };

test('a column is dense only when every doc has exactly one value', () => {
  assert.equal(new NumericDocValues(Uint32Array.of(0, 1, 2, 3), Float64Array.of(5, 6, 7)).dense, true);
  // Same total as docs, but doc 1 has none and doc 2 two: not dense.
  assert.equal(new NumericDocValues(Uint32Array.of(0, 1, 1, 3), Float64Array.of(5, 6, 7)).dense, false);
  assert.equal(new NumericDocValues(Uint32Array.of(0, 1, 1), Float64Array.of(5)).dense, false);
  assert.equal(new NumericDocValues(Uint32Array.of(0), new Float64Array(0)).dense, true, 'no docs');
  assert.equal(new OrdinalDocValues(Uint32Array.of(0, 1, 2), Uint32Array.of(1, 0), terms).dense, true);
  assert.equal(new OrdinalDocValues(Uint32Array.of(0, 2, 2), Uint32Array.of(0, 1), terms).dense, false);
});
