/** Record framing: format-freeze bytes and the checker's verdicts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkRecord, encodeRecord, REC_BAD, REC_OK, REC_SHORT, REC_ZERO } from './record.ts';
import { findRecord } from './reader.ts';

test('record frame bytes are frozen (type|flags, len u32 BE, crc32c over header+payload u32 BE)', () => {
  const buf = Buffer.alloc(12);
  assert.equal(encodeRecord(buf, 0, 0x05, Buffer.from('abc')), 12);
  // d0045834 = crc32c(05 00 00 00 03 61 62 63) in one call (the encoder chains two calls); changing the framing must change this test.
  assert.equal(buf.toString('hex'), '0500000003' + 'd0045834' + '616263');
  const snappyFlagged = Buffer.alloc(9);
  encodeRecord(snappyFlagged, 0, 0x80 | 0x7f, Buffer.alloc(0));
  assert.equal(snappyFlagged.subarray(0, 5).toString('hex'), 'ff00000000');
});

test('checkRecord verdicts', () => {
  const rec = Buffer.alloc(9 + 10);
  encodeRecord(rec, 0, 3, Buffer.from('0123456789'));
  const f = (bytes: Buffer, want: number) => assert.equal(checkRecord(bytes, 0, bytes.length), want, bytes.toString('hex'));
  f(rec, REC_OK);
  f(rec.subarray(0, 18), REC_SHORT);
  f(rec.subarray(0, 4), REC_SHORT);
  f(Buffer.alloc(20), REC_ZERO);
  f(Buffer.alloc(3), REC_ZERO);
  const flipped = Buffer.from(rec); flipped[12] ^= 1; f(flipped, REC_BAD);
  const flagsOnly = Buffer.from(rec); flagsOnly[0] = 0x80; f(flagsOnly, REC_BAD);
});

test('findRecord locates the next valid frame after garbage, or -1', () => {
  const rec = Buffer.alloc(9 + 4);
  encodeRecord(rec, 0, 9, Buffer.from('wxyz'));
  const garbage = Buffer.from('not a record at all');
  assert.equal(findRecord(Buffer.concat([garbage, rec]), 1), garbage.length);
  assert.equal(findRecord(Buffer.concat([garbage, Buffer.alloc(40)]), 1), -1);
});
