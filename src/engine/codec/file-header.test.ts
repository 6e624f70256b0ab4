/** File header: frozen bytes and the magic/version checks. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFileHeader, encodeFileHeader } from './file-header.ts';
import { CorruptionError, FormatVersionError } from '../errors.ts';
import { WAL_SEGMENT_MAGIC } from './format-ids.ts';

test('header bytes are frozen: magic u32 BE, version u8, flags u8, reserved u16', () => {
  assert.equal(encodeFileHeader(WAL_SEGMENT_MAGIC, 1).toString('hex'), '5457414c01000000');
  assert.equal(encodeFileHeader(0x01020304, 7, 0x80).toString('hex'), '0102030407800000');
});

test('checkFileHeader accepts the range and rejects the rest with the right error', () => {
  const ok = encodeFileHeader(0xcafebabe, 2, 3);
  assert.deepEqual(checkFileHeader(ok, 'f', 0xcafebabe, 1, 2), { magic: 0xcafebabe, version: 2, flags: 3 });
  const cases: { bytes: Buffer; err: new (...a: never[]) => Error; offset?: number }[] = [
    { bytes: ok.subarray(0, 7), err: CorruptionError, offset: 0 },
    { bytes: encodeFileHeader(0xcafebabf, 2), err: CorruptionError, offset: 0 },
    { bytes: encodeFileHeader(0xcafebabe, 3), err: FormatVersionError },
    { bytes: encodeFileHeader(0xcafebabe, 0), err: FormatVersionError },
    { bytes: Buffer.concat([ok.subarray(0, 6), Buffer.from([0, 1])]), err: CorruptionError, offset: 6 },
  ];
  for (const c of cases) {
    assert.throws(() => checkFileHeader(c.bytes, 'some/file', 0xcafebabe, 1, 2), (e: unknown) => {
      assert.ok(e instanceof c.err, String(e));
      if (c.offset !== undefined) assert.equal((e as CorruptionError).offset, c.offset);
      assert.match(String(e), /some\/file/);
      return true;
    }, c.bytes.toString('hex'));
  }
});
