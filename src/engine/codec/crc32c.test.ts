import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32c, crc32cShort } from './crc32c.ts';
import { mulberry32 } from '../../../bench/support/mulberry32.ts';

test('the table checksum of a range equals the native one, alone and continuing a previous checksum', () => {
  const check = new TextEncoder().encode('123456789');
  assert.equal(crc32c(check), 0xe3069283); // the CRC-32C check value
  assert.equal(crc32cShort(check, 0, check.length), 0xe3069283);
  const r = mulberry32(9);
  const bytes = Uint8Array.from({ length: 200 }, () => Math.floor(r() * 256));
  for (let k = 0; k < 500; k++) {
    const start = Math.floor(r() * 100), end = start + Math.floor(r() * 64);
    const initial = k % 3 === 0 ? 0 : Math.floor(r() * 2 ** 32);
    assert.equal(crc32cShort(bytes, start, end, initial), crc32c(bytes.subarray(start, end), initial), `[${start}, ${end}) from ${initial}`);
  }
  // A header checked here and its payload natively give the checksum of both at once (the WAL record's use).
  assert.equal(crc32c(bytes.subarray(5, 120), crc32cShort(bytes, 0, 5)), crc32c(bytes.subarray(0, 120)));
});
