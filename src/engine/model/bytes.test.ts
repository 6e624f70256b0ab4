import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatBase2Bytes, parseBase2Bytes } from './bytes.ts';

test('sizes parse as Prometheus units.Base2Bytes: both spellings are powers of 1024', () => {
  const f = (s: string, want: number | null): void => assert.equal(parseBase2Bytes(s), want, s);
  f('0', 0); f('1024', 1024); f('512B', 512); f('1KB', 1024); f('1KiB', 1024); f('10MB', 10 * 1024 ** 2); f('1GiB', 1024 ** 3);
  f('1.5GB', 1.5 * 1024 ** 3); f('2TiB', 2 * 1024 ** 4); f('1PB', 1024 ** 5); f('1EiB', 1024 ** 6); f('1GiB512MiB', 1024 ** 3 + 512 * 1024 ** 2);
  f('', null); f('1 GB', null); f('1gb', null); f('GB', null); f('1XB', null);
});

test('sizes print as Base2Bytes.String()', () => {
  assert.equal(formatBase2Bytes(10 * 1024 ** 2), '10MiB');
  assert.equal(formatBase2Bytes(1024 ** 3 + 512 * 1024 ** 2), '1GiB512MiB');
  assert.equal(formatBase2Bytes(0), '0B');
  assert.equal(formatBase2Bytes(100), '100B');
});
