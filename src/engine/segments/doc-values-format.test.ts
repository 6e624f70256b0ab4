import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { decodeNumeric, decodeOrdinals, encodeNumeric, encodeOrdinals } from './doc-values-format.ts';
import { NumericDocValues, OrdinalDocValues } from '../postings/segment.ts';
import { ArrayOrdinalTerms } from '../postings/memory-segment.ts';
import { CorruptionError } from '../errors.ts';
import { mulberry32 } from '../../../bench/support/mulberry32.ts';

// [term count, docs with several values, the array kind decoded ords come in]
const CASES: [number, boolean, string][] = [
  [1, false, 'Uint8Array'], [256, false, 'Uint8Array'], [257, false, 'Uint16Array'], [256, true, 'Uint8Array'],
  [65_536, false, 'Uint16Array'], [65_537, false, 'Uint32Array'], [70_000, true, 'Uint32Array'],
];

for (const [termCount, multi, kind] of CASES) {
  test(`ordinals over ${termCount} terms${multi ? ', several per doc' : ''} decode the same ords as a ${kind}`, () => {
    const r = mulberry32(termCount);
    const maxDoc = 3000, start = new Uint32Array(maxDoc + 1), ords: number[] = [];
    for (let d = 0; d < maxDoc; d++) {
      start[d] = ords.length;
      const n = d % 7 === 3 ? 0 : multi ? 1 + (d % 3) : 1; // some docs without a value
      const mine = new Set<number>();
      while (mine.size < n) mine.add(d === 0 ? termCount - 1 : Math.floor(r() * termCount));
      ords.push(...[...mine].sort((a, b) => a - b));
    }
    start[maxDoc] = ords.length;
    const terms = new ArrayOrdinalTerms(Array.from({ length: termCount }, (_, i) => `t${String(i).padStart(6, '0')}`));
    const dv = decodeOrdinals(encodeOrdinals(new OrdinalDocValues(start, Uint32Array.from(ords), terms), maxDoc), maxDoc, terms, 'f.dvd', 0);
    assert.equal(dv.ords.constructor.name, kind);
    assert.deepEqual([...dv.ords], ords, 'the largest ordinal survives too');
    assert.deepEqual(dv.start, start);
    assert.equal(dv.lookupOrd(dv.ords[0]), `t${String(termCount - 1).padStart(6, '0')}`);
  });
}

test('an ordinal past the term count is corruption, whatever array the column would use', () => {
  const terms = new ArrayOrdinalTerms(['a', 'b']);
  const bytes = encodeOrdinals(new OrdinalDocValues(Uint32Array.of(0, 1, 2), Uint32Array.of(1, 1), new ArrayOrdinalTerms(['a', 'b'])), 2);
  assert.throws(() => decodeOrdinals(bytes, 2, new ArrayOrdinalTerms(['a']), 'f.dvd', 7), CorruptionError);
  assert.deepEqual([...decodeOrdinals(bytes, 2, terms, 'f.dvd', 7).ords], [1, 1]);
});

// The packed numeric layout is pinned by the digest of its bytes (taken from the bit-by-bit packer the
// accumulator replaced), for widths inside, at and across byte boundaries.
const PACKED: [number, string, number][] = [
  [1, 'b8e40fd43b015584', 1731], [3, '2a48365dbb1f0671', 1931], [8, '06ade12a264cde01', 2431], [13, '99dba8ff6d41a3c2', 2931],
  [17, 'de077038290405e6', 3331], [31, 'aecd83f5014f591f', 4731], [32, '7cafc9b415a5868f', 4831],
];

test('packed numeric columns keep their bytes and decode to their values at every bit width', () => {
  const r = mulberry32(5);
  for (const [bits, digest, length] of PACKED) {
    const maxDoc = 1000, start = new Uint32Array(maxDoc + 1), vals: number[] = [];
    for (let d = 0; d < maxDoc; d++) { start[d] = vals.length; if (d % 5 !== 2) vals.push(1000 + 3 * Math.floor(r() * 2 ** bits)); }
    start[maxDoc] = vals.length;
    const bytes = encodeNumeric(new NumericDocValues(start, Float64Array.from(vals)), maxDoc);
    assert.equal(bytes.length, length, `${bits} bits`);
    assert.equal(createHash('sha256').update(bytes).digest('hex').slice(0, 16), digest, `${bits} bits`);
    const dv = decodeNumeric(bytes, maxDoc, 'f.dvd', 0);
    assert.deepEqual(dv.start, start);
    assert.deepEqual([...dv.values], vals, `${bits} bits`);
  }
});
