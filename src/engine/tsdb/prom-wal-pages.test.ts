/**
 * Format freeze of the WAL page layout (docs/format.md "TSDB WAL (Prometheus's wlog)"): hand-derived bytes of
 * fragments, page padding and records spanning pages, Prometheus's segment-fit rule, and the damage the decoder
 * reports.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Damage, FragmentDecoder, FragmentEncoder } from './prom-wal-pages.ts';

const PAGE = 32768;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const bytesOf = (n: number, seed = 1): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

function encode(recs: Uint8Array[], snappy = false): Uint8Array {
  const e = new FragmentEncoder(16);
  for (const r of recs) e.append(r, snappy);
  return e.buf.slice(0, e.used);
}

function decode(bytes: Uint8Array): { recs: string[]; damage: Damage | null } {
  const d = new FragmentDecoder();
  const recs: string[] = [];
  const damage = d.feed(bytes, 0, (r) => { recs.push(hex(r)); }) ?? d.finish();
  return { recs, damage };
}

test('a whole record is one "full" fragment: type 1, u16 length, CRC-32C of the data', () => {
  // crc32c("123456789") is the standard check value 0xE3069283.
  assert.equal(hex(encode([Buffer.from('123456789')])), '01' + '0009' + 'e3069283' + '313233343536373839');
  assert.equal(hex(encode([Buffer.from('123456789')], true)), '09' + '0009' + 'e3069283' + '313233343536373839', 'snappy flag 0x08');
  assert.equal(hex(encode([new Uint8Array(0)])), '01' + '0000' + '00000000', 'an empty record is still written');
});

test('a record larger than the rest of the page is split into first / last fragments at the page boundary', () => {
  const rec = bytesOf(40000);
  const b = encode([rec]);
  assert.equal(b.length, 7 + 32761 + 7 + 7239);
  assert.equal(hex(b.subarray(0, 3)), '027ff9', 'first fragment: 32768 − 7 bytes');
  assert.equal(hex(b.subarray(PAGE, PAGE + 3)), '041c47', 'last fragment on the next page: 7239 bytes');
  assert.deepEqual(decode(b).recs, [hex(rec)]);
  const big = bytesOf(3 * PAGE);
  const k = encode([big]);
  assert.deepEqual([k[0], k[PAGE], k[2 * PAGE], k[3 * PAGE]], [2, 3, 3, 4], 'first, middle, middle, last');
  assert.deepEqual(decode(k).recs, [hex(big)]);
});

test('fewer than 7 bytes left in a page are zero-padded; exactly 7 left start the next record with an empty "first" fragment', () => {
  const padded = encode([bytesOf(PAGE - 7 - 3), bytesOf(5)]);
  assert.equal(hex(padded.subarray(PAGE - 3, PAGE)), '000000');
  assert.equal(padded[PAGE], 1, 'the next record starts the next page');
  assert.equal(padded.length, PAGE + 7 + 5);
  const seven = encode([bytesOf(PAGE - 14), bytesOf(10, 9)]);
  assert.equal(hex(seven.subarray(PAGE - 7, PAGE)), '02' + '0000' + '00000000', 'Prometheus writes a zero-length first fragment');
  assert.equal(hex(seven.subarray(PAGE, PAGE + 3)), '04000a');
  assert.deepEqual(decode(seven).recs, [hex(bytesOf(PAGE - 14)), hex(bytesOf(10, 9))]);
});

test('segment fit: the free bytes of this page and the later ones, one header per page (Prometheus\'s rule)', () => {
  const e = new FragmentEncoder();
  const seg = 2 * PAGE;
  assert.equal(e.fits(2 * (PAGE - 7), seg), true);
  assert.equal(e.fits(2 * (PAGE - 7) + 1, seg), false);
  e.append(bytesOf(100), false);
  assert.equal(e.fits(2 * (PAGE - 7) - 107, seg), true);
  assert.equal(e.fits(2 * (PAGE - 7) - 106, seg), false);
  e.padPage();
  assert.equal(e.used, PAGE, 'closing a segment pads its last page');
});

test('records of many sizes decode back, fed whole or page by page', () => {
  const sizes = [0, 1, 6, 7, 100, PAGE - 14, PAGE - 7, PAGE - 6, PAGE, PAGE + 1, 70000, 3, 5];
  const recs = sizes.map((n, i) => bytesOf(n, i));
  const b = encode(recs);
  assert.deepEqual(decode(b).recs, recs.map(hex));
  const d = new FragmentDecoder();
  const got: string[] = [];
  for (let at = 0; at < b.length; at += PAGE) assert.equal(d.feed(b.subarray(at, Math.min(at + PAGE, b.length)), at, (r) => { got.push(hex(r)); }), null);
  assert.equal(d.finish(), null);
  assert.deepEqual(got, recs.map(hex));
});

/** Table: a damage applied to three encoded records → records kept and where the damage is reported. */
const DAMAGES: { name: string; damage: (b: Uint8Array) => Uint8Array; kept: number; at: (starts: number[]) => number; reason: RegExp }[] = [
  { name: 'flipped data byte', damage: (b) => { b[b.length - 1] ^= 1; return b; }, kept: 2, at: (s) => s[2], reason: /checksum/ },
  { name: 'record cut inside its last fragment', damage: (b) => b.subarray(0, b.length - 3), kept: 2, at: (s) => s[2], reason: /past the end/ },
  { name: 'header cut off', damage: (b) => Buffer.concat([b, Buffer.from([1, 0])]), kept: 3, at: (s) => s[3], reason: /header cut off/ },
  { name: 'zstd flag', damage: (b) => Buffer.concat([b, Buffer.from([0x11, 0, 1, 0, 0, 0, 0, 0])]), kept: 3, at: (s) => s[3], reason: /zstd/ },
  { name: 'trailing zeros', damage: (b) => Buffer.concat([b, Buffer.alloc(100)]), kept: 3, at: () => -1, reason: /./ },
  { name: 'garbage after zero padding', damage: (b) => Buffer.concat([b, Buffer.from([0, 0, 7])]), kept: 3, at: (s) => s[3], reason: /non-zero/ },
];

for (const c of DAMAGES) {
  test(`damage: ${c.name}`, () => {
    const recs = [bytesOf(50, 1), bytesOf(PAGE + 10, 2), bytesOf(40, 3)];
    const clean = encode(recs);
    const starts = [0, 1, 2, 3].map((k) => encode(recs.slice(0, k)).length); // where each record starts
    const { recs: got, damage } = decode(c.damage(Uint8Array.from(clean)));
    assert.deepEqual(got, recs.slice(0, c.kept).map(hex));
    if (c.at(starts) < 0) { assert.equal(damage, null); return; }
    assert.equal(damage?.offset, c.at(starts));
    assert.match(damage!.reason, c.reason);
  });
}

test('damage inside a record spanning pages is reported at the record\'s first fragment', () => {
  const recs = [bytesOf(10), bytesOf(PAGE * 2)];
  const b = encode(recs);
  b[PAGE + 100] ^= 0xff; // inside the middle fragment
  const { recs: got, damage } = decode(b);
  assert.equal(got.length, 1);
  assert.deepEqual(damage, { offset: 17, reason: 'fragment checksum mismatch' });
  const torn = decode(encode(recs).subarray(0, PAGE + 50));
  assert.equal(torn.damage?.offset, 17, 'a record whose last fragment is missing is torn where it starts');
});
