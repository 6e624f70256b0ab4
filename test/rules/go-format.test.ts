/** Go's fmt number formats as alert templates and the rules API print them (expected values are Go's output). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goE, goF, goG } from '../../src/engine/rules/go-format.ts';

const cases: [string, string, string][] = [
  // [call, got, Go's output] — exact binary ties round to even in Go.
  ['%.1f 2.25', goF(2.25, 1), '2.2'], ['%.1f 2.35', goF(2.35, 1), '2.4'], ['%.2f 0.125', goF(0.125, 2), '0.12'],
  ['%.2f 0.375', goF(0.375, 2), '0.38'], ['%.0f 2.5', goF(2.5, 0), '2'], ['%.0f 3.5', goF(3.5, 0), '4'], ['%.2f 1.005', goF(1.005, 2), '1.00'],
  ['%.6e 1234.5', goE(1234.5, 6), '1.234500e+03'], ['%.0e 2.5', goE(2.5, 0), '2e+00'], ['%.1e 12.5', goE(12.5, 1), '1.2e+01'],
  ['%.2g 0.125', goG(0.125, 2), '0.12'], ['%.4g 1234.5', goG(1234.5, 4), '1234'], ['%.4g 1234567.891', goG(1234567.891, 4), '1.235e+06'],
  ['%v 1e21', goG(1e21), '1e+21'], ['%v 123456', goG(123456), '123456'], ['%v 1234567', goG(1234567), '1.234567e+06'], ['%v 0.0001', goG(0.0001), '0.0001'],
  ["'e' -1 of 1", goE(1, -1), '1e+00'], ["'e' -1 of 0.25", goE(0.25, -1), '2.5e-01'], ["'e' -1 of NaN", goE(NaN, -1), 'NaN'], ["'e' -1 of -Inf", goE(-Infinity, -1), '-Inf'],
];

for (const [what, got, want] of cases) test(`Go format ${what}`, () => assert.equal(got, want));
