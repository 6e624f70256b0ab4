/** The block index decoder reports damage it can only see after the checksum passed as CorruptionError. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeIndex } from './block-index.ts';
import { beginFile, endFile } from './file-frame.ts';
import { TSDB_INDEX_MAGIC, TSDB_INDEX_VERSION } from '../codec/format-ids.ts';
import { CorruptionError } from '../errors.ts';

test('a label referring past the symbol table is a CorruptionError naming the file and offset', () => {
  // A well-framed file (the checksum matches) whose one series names symbol 5 of a 2-symbol table.
  const w = beginFile(TSDB_INDEX_MAGIC, TSDB_INDEX_VERSION);
  w.uvarint(2); w.str('__name__'); w.str('up');
  w.uvarint(1); w.uvarint(1); w.uvarint(0); w.uvarint(5);
  const bytes = endFile(w);
  assert.throws(() => decodeIndex(bytes, 'blk/index'),
    (e: Error) => e instanceof CorruptionError && e.file === 'blk/index' && e.offset > 8 && /symbol ref 5 out of range/.test(e.message));
});
