/**
 * The byte-level number readers must give exactly what the string path (Go's ParseFloat rules) gives:
 * every token is read both ways and compared bit for bit, over hand-picked edge cases and a seeded sweep of
 * decimals around the fast path's limits (15 digits, exponents ±22).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFloatBytes, parseGoFloat, parseIntBytes } from './exposition-tokens.ts';

function bits(v: number): string {
  const f = new Float64Array([v]);
  return Buffer.from(f.buffer).toString('hex');
}

function viaBytes(t: string): number {
  // Surrounded by other bytes, as in a body: the reader must stay inside its range.
  const b = Buffer.from(`x{a="1"} ${t} 123\n`, 'latin1');
  const from = 9;
  return parseFloatBytes(b, from, from + t.length);
}

const EDGE = [
  '0', '-0', '+0', '1', '-1', '1.', '.5', '-.5', '0.1', '0.3', '1e3', '1E3', '1e+06', '1e-07', '2.5e-3', '-1.5E+2',
  '123456789012345', '1234567890123456', '12345678901234567890', '0.000000000000000000001', '1e22', '1e23', '1e-22',
  '1e-23', '9007199254740993', '4.35', '1.458255915e9', '17179869184', '3.14159265358979', '1e308', '1e309', '5e-324',
  '+Inf', '-Inf', 'Inf', 'inf', 'NaN', 'nan', 'Infinity', '0x10', '0b1', '1_000', '', '-', '.', 'e5', '1e', '1e+', '1.2.3',
  '1ee3', '00012', '-00012.500', '1e0001', '1e00001',
];

test('parseFloatBytes agrees with parseGoFloat on edge cases', () => {
  for (const t of EDGE) assert.equal(bits(viaBytes(t)), bits(parseGoFloat(t)), `token ${JSON.stringify(t)}`);
});

test('parseFloatBytes agrees with parseGoFloat on a sweep of decimals', () => {
  let seed = 12345;
  const rnd = (n: number): number => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed % n; };
  for (let i = 0; i < 50_000; i++) {
    let digits = '';
    const nd = 1 + rnd(17);
    for (let d = 0; d < nd; d++) digits += String(rnd(10));
    const dot = rnd(nd + 1);
    let t = dot === nd ? digits : `${digits.slice(0, dot)}.${digits.slice(dot)}`;
    if (rnd(3) === 0) t += `e${rnd(2) ? '-' : '+'}${rnd(30)}`;
    if (rnd(4) === 0) t = '-' + t;
    assert.equal(bits(viaBytes(t)), bits(parseGoFloat(t)), `token ${t}`);
  }
});

test('parseIntBytes reads integer timestamps and refuses the rest', () => {
  const b = Buffer.from('1700000000000 -42 12a 1234567890123456 - ', 'latin1');
  assert.equal(parseIntBytes(b, 0, 13), 1_700_000_000_000);
  assert.equal(parseIntBytes(b, 14, 17), -42);
  assert.ok(Number.isNaN(parseIntBytes(b, 18, 21)));
  assert.ok(Number.isNaN(parseIntBytes(b, 22, 38)), 'more than 15 digits take the checked path');
  assert.ok(Number.isNaN(parseIntBytes(b, 39, 40)));
});
