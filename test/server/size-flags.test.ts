/** Size flags read like Prometheus's (`units.Base2Bytes`). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags, bytesOf } from '../../src/server/flags.ts';

test('--storage.tsdb.retention.size takes binary and decimal unit names', () => {
  for (const [arg, bytes] of [['1GiB', 1024 ** 3], ['512MB', 512 * 1024 ** 2], ['2TB', 2 * 1024 ** 4]] as const) {
    const { flags } = parseFlags(['--storage.tsdb.retention.size', arg]);
    assert.equal(bytesOf(flags['storage.tsdb.retention.size']), bytes);
  }
  assert.throws(() => parseFlags(['--storage.tsdb.retention.size', '1 GB']), /1GiB/);
});

test('-E workers.young_generation_size: 12MB by default, 0 for V8\'s own bound', () => {
  assert.equal(bytesOf(parseFlags([]).flags['workers.young_generation_size']), 12 * 1024 ** 2);
  assert.equal(bytesOf(parseFlags(['-E', 'workers.young_generation_size=0']).flags['workers.young_generation_size']), 0);
  assert.equal(bytesOf(parseFlags(['-E', 'workers.young_generation_size=24MB']).flags['workers.young_generation_size']), 24 * 1024 ** 2);
});
