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
