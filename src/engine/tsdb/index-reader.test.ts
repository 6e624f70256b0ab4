/** The index reader reports damage it can only see after a section's checksum passed as CorruptionError. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeIndex } from './index-writer.ts';
import { BlockIndexReader } from './index-reader.ts';
import { crc32c } from '../codec/crc32c.ts';
import { CorruptionError } from '../errors.ts';

test('a label referring past the symbol table is a CorruptionError naming the file and offset', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'index-reader-'));
  try {
    const bytes = Buffer.from(encodeIndex([{ labels: [{ name: '__name__', value: 'up' }], chunks: [{ mint: 0, maxt: 10, ref: 8 }] }]));
    // The one series (at the first 16-byte boundary after the symbol table) names symbols 0 and 1; make the
    // value symbol 5 of the 2-symbol table and fix the entry's checksum so only the reference is wrong.
    const series = Math.ceil((5 + 8 + bytes.readUInt32BE(5)) / 16) * 16;
    const len = bytes[series];
    assert.deepEqual([...bytes.subarray(series + 1, series + 4)], [1, 0, 1]);
    bytes[series + 3] = 5;
    bytes.writeUInt32BE(crc32c(bytes.subarray(series + 1, series + 1 + len)), series + 1 + len);
    const file = path.join(dir, 'index');
    writeFileSync(file, bytes);
    const r = new BlockIndexReader(file);
    try {
      assert.throws(() => r.series(series / 16),
        (e: Error) => e instanceof CorruptionError && e.file === file && e.offset === series && /symbol ref 5 out of range/.test(e.message));
    } finally { r.close(); }
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('decoded series entries are bounded by their chunk references too (a compacted block has one per 2 h it spans)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'index-reader-'));
  const readers: BlockIndexReader[] = [];
  try {
    // Two blocks of 1,000 series with 100 chunks each: 200,000 chunk references, more than the 65,536 the
    // cache holds, in 2,000 entries (far under its 16,384 entries). Then one series of 70,000 chunks.
    const N = 1000, C = 100, pad = (i: number): string => String(i).padStart(4, '0');
    const chunks = (n: number, i: number) => Array.from({ length: n }, (_, k) => ({ mint: i + k * 100, maxt: i + k * 100 + 50, ref: 8 + k * 32 }));
    for (let b = 0; b < 2; b++) {
      const series = Array.from({ length: N }, (_, i) => ({
        labels: [{ name: '__name__', value: 'up' }, { name: 'block', value: String(b) }, { name: 'i', value: pad(i) }], chunks: chunks(C, i),
      }));
      const file = path.join(dir, `index-${b}`);
      writeFileSync(file, encodeIndex(series));
      readers.push(new BlockIndexReader(file));
    }
    const bigFile = path.join(dir, 'index-big');
    writeFileSync(bigFile, encodeIndex([{ labels: [{ name: '__name__', value: 'big' }], chunks: chunks(70_000, 7) }]));
    const big = new BlockIndexReader(bigFile);
    readers.push(big);
    const refs = readers.map((r) => r.allPostings());
    const check = (b: number, i: number): void => {
      const s = readers[b].series(refs[b][i]);
      assert.deepEqual(s.labels.map((l) => l.value), ['up', String(b), pad(i)]);
      assert.equal(s.chunks.length, 3 * C);
      assert.equal(s.chunks[3 * (C - 1)], i + (C - 1) * 100, 'the last chunk\'s mint');
    };
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < N; i++) for (let b = 0; b < 2; b++) check(b, i);
      const cached = readers[0].cachedSeries() + readers[1].cachedSeries();
      assert.ok(cached * C <= 65_536, `${cached} entries of ${C} chunks cached`);
      assert.ok(cached * C > 60_000, `${cached} entries of ${C} chunks cached: the bound is used`);
    }
    const s = big.series(refs[2][0]);
    assert.equal(s.chunks.length, 3 * 70_000);
    assert.equal(s.chunks[3 * 69_999], 7 + 69_999 * 100, 'the last chunk\'s mint');
    assert.equal(readers[0].cachedSeries() + readers[1].cachedSeries(), 0, 'an entry over the bound evicts every other');
    assert.equal(big.cachedSeries(), 1);
    check(1, 5);
    assert.equal(big.cachedSeries(), 0, 'and goes first when the next entry comes');
  } finally {
    for (const r of readers) r.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('decoded series entries are bounded over all open readers and stay right across evictions and a close', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'index-reader-'));
  const readers: BlockIndexReader[] = [];
  try {
    // Five blocks of 5,000 series: together more entries than the thread's cache of 16,384 holds (a cache of
    // 4,096 per block would hold 20,480).
    const N = 5000, B = 5, pad = (i: number): string => String(i).padStart(5, '0');
    for (let b = 0; b < B; b++) {
      const series = Array.from({ length: N }, (_, i) => ({
        labels: [{ name: '__name__', value: 'up' }, { name: 'block', value: String(b) }, { name: 'i', value: pad(i) }],
        chunks: [{ mint: i, maxt: i + 10, ref: 8 + i * 32 }],
      }));
      const file = path.join(dir, `index-${b}`);
      writeFileSync(file, encodeIndex(series));
      readers.push(new BlockIndexReader(file));
    }
    const refs = readers.map((r) => r.allPostings());
    const check = (b: number, i: number): void => {
      const s = readers[b].series(refs[b][i]);
      assert.deepEqual(s.labels.map((l) => l.value), ['up', String(b), pad(i)]);
      assert.equal(s.chunks[0], i, 'the first chunk\'s mint');
    };
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < N; i++) for (let b = 0; b < B; b++) check(b, i);
      const cached = readers.reduce((n, r) => n + r.cachedSeries(), 0);
      assert.ok(cached <= 16_384, `${cached} entries cached`);
      assert.ok(readers.every((r) => r.cachedSeries() > 0));
    }
    readers[0].close();
    assert.equal(readers[0].cachedSeries(), 0);
    for (let i = N - 1; i >= 0; i--) for (let b = 1; b < B; b++) check(b, i);
    assert.ok(readers.reduce((n, r) => n + r.cachedSeries(), 0) <= 16_384);
  } finally {
    for (const r of readers.slice(1)) r.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('readers decode their symbols at first use, hold one interned copy of each, released when the last reader holding it closes', async () => {
  const { internedSymbols } = await import('./symbol-intern.ts');
  const dir = mkdtempSync(path.join(tmpdir(), 'index-reader-'));
  try {
    const at = (i: number) => ({ labels: [{ name: '__name__', value: 'up' }, { name: 'i', value: `v${i}` }], chunks: [{ mint: 0, maxt: 1, ref: 8 }] });
    writeFileSync(path.join(dir, 'a'), encodeIndex([at(1), at(2)]));
    const b = Buffer.from(encodeIndex([at(2), at(3)]));
    writeFileSync(path.join(dir, 'b'), b);
    const base = internedSymbols();
    const ra = new BlockIndexReader(path.join(dir, 'a')); // __name__ i up v1 v2
    const rb = new BlockIndexReader(path.join(dir, 'b')); // adds v3
    assert.equal(internedSymbols() - base, 0, 'opening checks the tables and decodes neither');
    // Names, values and postings come from the postings offset table alone, as does whether refs are in label order.
    assert.deepEqual(ra.labelNames(), ['__name__', 'i']);
    assert.deepEqual(rb.labelValues('i'), ['v2', 'v3']);
    assert.deepEqual([...rb.postings('i', 'v3')!], [...rb.allPostings()].slice(1));
    assert.equal(ra.utf16Ordered, true);
    assert.equal(internedSymbols() - base, 0, 'the symbol table is decoded for series entries only');
    const [ref] = ra.postings('i', 'v1')!;
    assert.deepEqual(ra.series(ref).labels, [{ name: '__name__', value: 'up' }, { name: 'i', value: 'v1' }]);
    assert.equal(internedSymbols() - base, 5);
    rb.series(rb.postings('i', 'v3')![0]);
    assert.equal(internedSymbols() - base, 6);
    ra.close();
    assert.equal(internedSymbols() - base, 5); // v1 was a's alone
    rb.close();
    assert.equal(internedSymbols() - base, 0);
    // A damaged postings offset table is refused at open (its checksum is checked there), holding no symbols.
    const toc = b.length - 52, postingsTable = b.readUInt32BE(toc + 5 * 8 + 4);
    b[postingsTable + 4 + 1] ^= 0xff;
    writeFileSync(path.join(dir, 'b'), b);
    assert.throws(() => new BlockIndexReader(path.join(dir, 'b')), (e: Error) => e instanceof CorruptionError && /postings offset table checksum/.test(e.message));
    assert.equal(internedSymbols() - base, 0);
    // A reader closed before it used its tables releases nothing it did not hold.
    const unused = new BlockIndexReader(path.join(dir, 'a'));
    const used = new BlockIndexReader(path.join(dir, 'a'));
    assert.deepEqual(used.labelValues('i'), ['v1', 'v2']);
    used.series(used.postings('i', 'v1')![0]);
    unused.close();
    assert.equal(internedSymbols() - base, 5);
    used.close();
    assert.equal(internedSymbols() - base, 0);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('a series hash read from the entry equals the hash of its decoded labels, and checks the entry', async () => {
  const { labelsHash } = await import('./labels.ts');
  const dir = mkdtempSync(path.join(tmpdir(), 'index-reader-'));
  try {
    const series = Array.from({ length: 300 }, (_, i) => ({
      labels: [{ name: '__name__', value: 'req_total' }, { name: 'code', value: String(200 + (i % 5)) }, { name: 'i', value: `é${i}` }],
      chunks: [{ mint: i, maxt: i + 10, ref: 8 }],
    }));
    const bytes = Buffer.from(encodeIndex(series));
    const file = path.join(dir, 'index');
    writeFileSync(file, bytes);
    const r = new BlockIndexReader(file);
    try {
      const refs = r.allPostings();
      assert.equal(refs.length, 300);
      // Uncached first (nothing decoded yet), then the same refs once their entries are in the cache.
      const fromEntry = [...refs].map((ref) => r.labelsHashOf(ref));
      assert.equal(r.cachedSeries(), 0, 'hashing decodes and caches nothing');
      const decoded = [...refs].map((ref) => labelsHash(r.series(ref).labels));
      assert.deepEqual(fromEntry, decoded);
      assert.equal(new Set(decoded).size, 300);
      assert.deepEqual([...refs].map((ref) => r.labelsHashOf(ref)), decoded);
    } finally { r.close(); }
    // A damaged entry is refused as when it is decoded.
    const first = Math.ceil((5 + 8 + bytes.readUInt32BE(5)) / 16) * 16;
    bytes[first + 3] ^= 1;
    writeFileSync(file, bytes);
    const d = new BlockIndexReader(file);
    try {
      assert.throws(() => d.labelsHashOf(first / 16), (e: Error) => e instanceof CorruptionError && /series checksum mismatch/.test(e.message));
    } finally { d.close(); }
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

/**
 * `postingsWhere` reads each picked list in place in the read window and checks its checksum, in JavaScript for
 * short lists (one ref) and natively for long ones (20 refs): a flipped ref is a CorruptionError at that list.
 */
test('postingsWhere gathers the picked lists and reports a damaged short or long list', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'index-reader-'));
  try {
    // id=a0..a9 one series each; group=g (all 30), id=b0..b19 share kind=many.
    const series = Array.from({ length: 30 }, (_, i) => ({
      labels: [{ name: 'g', value: 'g' }, { name: 'id', value: i < 10 ? `a${i}` : `b${String(i).padStart(2, '0')}` }, { name: 'kind', value: i < 10 ? 'one' : 'many' }],
      chunks: [{ mint: i, maxt: i + 10, ref: 8 + i * 32 }],
    }));
    const bytes = Buffer.from(encodeIndex(series));
    const file = path.join(dir, 'index');
    writeFileSync(file, bytes);
    const r = new BlockIndexReader(file);
    let all: number[], many: number[];
    try {
      all = [...r.allPostings()];
      assert.deepEqual([...r.postingsWhere('id', (v) => v === 'a3' || v === 'a7' || v === 'b12')], [all[3], all[7], all[12]]);
      many = [...r.postings('kind', 'many')!];
      assert.deepEqual([...r.postingsWhere('kind', (v) => v === 'many')], all.slice(10));
    } finally { r.close(); }
    // Flip the last byte of a7's one ref, then one ref in the middle of kind=many's list: each list's checksum fails.
    const listAt = (ref: number, count: number): number => {
      for (let at = 0; at + 8 <= bytes.length; at += 4) {
        if (bytes.readUInt32BE(at) === 4 + 4 * count && bytes.readUInt32BE(at + 4) === count && bytes.readUInt32BE(at + 8) === ref) return at;
      }
      throw new Error('list not found');
    };
    for (const [name, value, at] of [['id', 'a7', listAt(all[7], 1) + 8 + 3], ['kind', 'many', listAt(many[0], 20) + 8 + 4 * 9 + 3]] as const) {
      const damaged = Buffer.from(bytes);
      damaged[at] ^= 1;
      writeFileSync(file, damaged);
      const d = new BlockIndexReader(file);
      try {
        assert.throws(() => d.postingsWhere(name, (v) => v === value),
          (e: Error) => e instanceof CorruptionError && e.file === file && /postings list checksum mismatch/.test(e.message));
      } finally { d.close(); }
    }
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

/**
 * The postings offset table is split into per-name runs without decoding values (a name compared byte for byte
 * with the previous one): names that are prefixes of one another, of equal length, empty-valued or non-ASCII,
 * and a long table, against a model of the series; `utf16Ordered` from the bytes or the decoded symbols.
 */
test('label names, values and postings read per name match the series they were written from', async () => {
  const fc = (await import('fast-check')).default;
  const { compareLabels } = await import('./labels.ts');
  const NAMES = ['a', 'ab', 'b', 'ba', 'é', 'x'.repeat(130), '\u{1F600}'];
  const VALUES = ['', 'v', 'vv', 'w', 'é', '\uE000', 'y'.repeat(200)];
  const arbSeries = fc.uniqueArray(
    fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMES), fc.constantFrom(...VALUES.slice(1))), { selector: (p) => p[0], minLength: 1, maxLength: 4 })
      .map((ps) => ps.map(([name, value]) => ({ name, value })).sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))),
    { selector: (ls) => JSON.stringify(ls), minLength: 1, maxLength: 40 },
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'index-reader-'));
  try {
    fc.assert(fc.property(arbSeries, (sets) => {
      const series = sets.sort(compareLabels).map((labels, i) => ({ labels, chunks: [{ mint: i, maxt: i + 1, ref: 8 + i * 32 }] }));
      const file = path.join(dir, 'index');
      writeFileSync(file, encodeIndex(series));
      const r = new BlockIndexReader(file);
      try {
        const all = [...r.allPostings()];
        assert.equal(all.length, series.length);
        const names = [...new Set(series.flatMap((s) => s.labels.map((l) => l.name)))];
        assert.deepEqual([...r.labelNames()].sort(), names.sort());
        for (const name of names) {
          const values = [...new Set(series.flatMap((s) => s.labels.filter((l) => l.name === name).map((l) => l.value)))];
          assert.deepEqual([...r.labelValues(name)].sort(), values.sort());
          for (const value of values) {
            const want = series.flatMap((s, i) => (s.labels.some((l) => l.name === name && l.value === value) ? [all[i]] : []));
            assert.deepEqual([...r.postings(name, value)!], want);
          }
          assert.equal(r.postings(name, 'absent'), null);
        }
        assert.equal(r.labelValues('absent').length, 0);
        const symbols = series.flatMap((s) => s.labels.flatMap((l) => [l.name, l.value]));
        assert.equal(r.utf16Ordered, symbols.every((s) => !/[\ud800-\uffff]/.test(s)));
      } finally { r.close(); }
    }), { numRuns: 150, seed: 5 });
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

/**
 * A series entry's body is checksummed in JavaScript when short and natively when long (`entry`); either way a
 * flipped byte is a CorruptionError at the entry, and an intact one decodes every chunk place.
 */
test('series entries, short and long, decode their chunk places and refuse a flipped byte', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'index-reader-'));
  try {
    const places = (n: number) => Array.from({ length: n }, (_, i) => ({ mint: 1_700_000_000_000 + i * 7_200_000, maxt: 1_700_000_000_000 + i * 7_200_000 + 7_140_000, ref: 8 + i * 150 }));
    for (const n of [1, 40]) { // bodies of ~10 and ~250 bytes, either side of the 64 checked in JavaScript
      const bytes = Buffer.from(encodeIndex([{ labels: [{ name: '__name__', value: 'up' }], chunks: places(n) }]));
      const file = path.join(dir, `index-${n}`);
      writeFileSync(file, bytes);
      const series = Math.ceil((5 + 8 + bytes.readUInt32BE(5)) / 16) * 16;
      const r = new BlockIndexReader(file);
      try {
        assert.deepEqual(r.series(series / 16).chunks, places(n).flatMap((c) => [c.mint, c.maxt, c.ref]));
      } finally { r.close(); }
      bytes[series + 6] ^= 0x10;
      writeFileSync(file, bytes);
      const d = new BlockIndexReader(file);
      try {
        assert.throws(() => d.series(series / 16), (e: Error) => e instanceof CorruptionError && e.offset === series && /series checksum mismatch/.test(e.message), `${n} chunks`);
      } finally { d.close(); }
    }
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
