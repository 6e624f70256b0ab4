/** Head chunk files: chunks read back from the write buffer and from disk, checksums, truncation by time. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HeadChunkFiles } from './head-chunks.ts';
import { CorruptionError } from '../errors.ts';

test('head chunk files: read back before and after the write-out, checksums checked, files dropped by time', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'head-chunks-'));
  const dir = path.join(root, 'chunks_head');
  try {
    writeFileSync(path.join(root, 'stale'), 'x');
    const f = new HeadChunkFiles(dir, 300);
    const data = (n: number): Uint8Array => Uint8Array.from({ length: 100 }, (_, i) => (i * n) & 0xff);
    const refs = [1, 2, 3, 4].map((n) => f.write(n, n * 1000, n * 1000 + 999, data(n)));
    assert.deepEqual([...f.read(refs[3])], [...data(4)], 'from the write buffer');
    f.flush();
    assert.deepEqual(refs.map((r) => Math.floor(r / 2 ** 32)), [0, 0, 1, 1], 'a file holds what fits in its size');
    assert.deepEqual([...f.read(refs[0])], [...data(1)], 'from disk');
    const file1 = path.join(dir, '000001');
    const bytes = readFileSync(file1);
    assert.equal(bytes.readUInt32BE(0), 0x0130bc91);
    assert.equal(bytes[4], 1);
    bytes[(refs[1] % 2 ** 32) + 40] ^= 1;
    writeFileSync(file1, bytes);
    assert.throws(() => f.read(refs[1]), (e: unknown) => e instanceof CorruptionError && e.file === file1 && e.offset === refs[1] % 2 ** 32);
    f.truncateBefore(3000);
    assert.deepEqual(readdirSync(dir), ['000002'], 'the first file only held chunks ending before 3000');
    assert.throws(() => f.read(refs[0]), CorruptionError);
    assert.deepEqual([...f.read(refs[2])], [...data(3)]);
    f.close();
    new HeadChunkFiles(dir).close();
    assert.deepEqual(readdirSync(dir), [], 'a new head starts from empty files (the WAL rebuilds it)');
  } finally { rmSync(root, { recursive: true, force: true }); }
});
