import { test } from 'node:test';
import assert from 'node:assert/strict';
import { murmur3Utf16, shardFor } from './routing.ts';

// Vectors from the reference's Appendix B (Lucene murmurhash3_x86_32 over UTF-16LE, then floorMod).
const VECTORS: [string, number, number, number, number][] = [
  ['0', 384918240, 0, 0, 0], ['1', -126235597, 3, 2, 1], ['2', -303927213, 2, 0, 1], ['3', -1151172406, 4, 2, 0],
  ['4', -1265741853, 2, 0, 1], ['5', -1501624929, 1, 0, 1], ['6', -1677976503, 2, 0, 1], ['7', -1167431322, 3, 0, 0],
  ['8', 735335986, 1, 1, 0], ['9', 824610026, 1, 2, 0], ['10', -1518128929, 1, 2, 1], ['a', 1867108634, 4, 2, 0],
  ['test_id', 1436672205, 0, 0, 1], ['中文', -819122266, 4, 2, 0], ['kimchy', -744545919, 1, 0, 1],
];

test('murmur3 routing matches Elasticsearch', () => {
  for (const [id, hash, s5, s3, s2] of VECTORS) {
    assert.equal(murmur3Utf16(id), hash, `hash of ${id}`);
    assert.deepEqual([shardFor(id, 5), shardFor(id, 3), shardFor(id, 2)], [s5, s3, s2], `shards of ${id}`);
  }
});
