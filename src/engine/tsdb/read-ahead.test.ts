/** Read-ahead windows: every read returns the file's bytes, and the windows kept between reads stay bounded. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { keptWindowBytes, ReadAheadFile, readingThroughSharedWindows, SharedWindow } from './read-ahead.ts';
import { mulberry32 } from '../../../bench/support/mulberry32.ts';

/**
 * Runs `body` over `n` files of `size` random bytes (seeded with `seed`), open for reading; `rnd` goes on from
 * the same generator. The files are closed and removed afterwards.
 */
function withRandomFiles(seed: number, n: number, size: number, body: (contents: Buffer[], fds: number[], rnd: () => number) => void): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'read-ahead-'));
  const rnd = mulberry32(seed);
  const contents: Buffer[] = [], fds: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const b = Buffer.alloc(size);
      for (let j = 0; j < size; j += 4) b.writeUInt32LE((rnd() * 2 ** 32) >>> 0, j);
      const file = path.join(dir, String(i));
      writeFileSync(file, b);
      contents.push(b);
      fds.push(openSync(file, 'r'));
    }
    body(contents, fds, rnd);
  } finally {
    for (const fd of fds) closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

test('reads over many files return the right bytes while old windows are dropped, and views stay valid', () => {
  const FILES = 24, SIZE = 1 << 20;
  withRandomFiles(3, FILES, SIZE, (contents, fds, rnd) => {
    const files = fds.map((fd) => new ReadAheadFile(fd, SIZE));
    const views: [Buffer, number, number][] = [];
    // Forward runs (the windows grow to their largest) and jumps, over the files in turn: 24 files of 512 KB
    // windows are three times what a thread keeps.
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < FILES; i++) {
        let off = Math.floor(rnd() * SIZE / 4);
        for (let k = 0; k < 400 && off < SIZE - 64; k++) {
          const n = 1 + Math.floor(rnd() * 63);
          const v = files[i].read(off, n);
          assert.ok(v.equals(contents[i].subarray(off, off + n)), `file ${i} at ${off}`);
          views.push([v, i, off]);
          off += n + Math.floor(rnd() * 4_000);
        }
        assert.ok(keptWindowBytes() <= 8 * 1024 * 1024 + 512 * 1024, `kept ${keptWindowBytes()} bytes`);
      }
    }
    // Views handed out before their window was dropped still hold the bytes they were read with.
    for (const [v, i, off] of views) assert.ok(v.equals(contents[i].subarray(off, off + v.length)));
    for (const f of files) f.release();
    assert.equal(keptWindowBytes(), 0);
  });
});

test('inside readingThroughSharedWindows the files of one shared window refill it; views from before and after keep their own', () => {
  const FILES = 6, SIZE = 1 << 20;
  withRandomFiles(5, FILES, SIZE, (contents, fds, rnd) => {
    const window = new SharedWindow();
    const shared = fds.map((fd) => new ReadAheadFile(fd, SIZE, window));
    const own = new ReadAheadFile(fds[0], SIZE);
    const other = new ReadAheadFile(fds[FILES - 1], SIZE, new SharedWindow());
    const before = shared[0].read(100, 32);
    const windows = new Set<ArrayBufferLike>();
    const ownViews: [Buffer, number][] = [];
    readingThroughSharedWindows(() => {
      // Forward runs over each file in turn, with jumps back: every read is checked before the next one.
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < FILES; i++) {
          for (let off = Math.floor(rnd() * 4096); off < SIZE - 64; off += 1 + Math.floor(rnd() * 20_000)) {
            const n = 1 + Math.floor(rnd() * 63);
            const v = shared[i].read(off, n);
            // A read through another shared window (as an index read between two chunk reads) leaves it alone.
            const o = other.read(SIZE - 1 - off, 1);
            assert.ok(v.equals(contents[i].subarray(off, off + n)), `file ${i} at ${off}`);
            assert.equal(o[0], contents[FILES - 1][SIZE - 1 - off]);
            windows.add(v.buffer);
            if (off % 7 === 0) ownViews.push([own.read(off, n), off]);
          }
        }
      }
    });
    // (A read inside the window file 0 had before the call is served from that window.)
    windows.delete(before.buffer);
    assert.equal(windows.size, 1, 'every shared read went through one window');
    // A file without a shared window kept windows of its own inside the call: its views still hold their bytes.
    for (const [v, off] of ownViews) assert.ok(v.equals(contents[0].subarray(off, off + v.length)));
    assert.ok(before.equals(contents[0].subarray(100, 132)), 'a view from before the call is intact');
    const after = shared[1].read(5000, 40);
    assert.notEqual(after.buffer, [...windows][0], 'after the call a shared file reads into a window of its own');
    shared[2].read(9000, 40);
    shared[1].read(900_000, 40);
    assert.ok(after.equals(contents[1].subarray(5000, 5040)), 'and its views stay valid after later reads');
    for (const f of [...shared, own, other]) f.release();
  });
});

test('an in-place reader refills one window of its own, outside the kept windows, and a closed one hands it to the next', () => {
  const SIZE = 3 << 20;
  withRandomFiles(5, 2, SIZE, (contents, fds, rnd) => {
    const kept = keptWindowBytes();
    const a = new ReadAheadFile(fds[0], SIZE, null, true);
    let window: Buffer | null = null;
    // Forward runs and jumps: every read is the file's bytes, and once grown the window is the same buffer.
    for (let k = 0; k < 3000; k++) {
      const off = Math.floor(rnd() * (SIZE - 64));
      const n = 1 + Math.floor(rnd() * 63);
      assert.ok(a.read(off, n).equals(contents[0].subarray(off, off + n)), `at ${off}`);
      if (a.windowBytes.length === 512 * 1024) window ??= a.windowBytes;
      if (window !== null) assert.equal(a.windowBytes, window, 'a refill overwrote the window, not a new one');
    }
    assert.ok(window !== null, 'the window grew to its largest size');
    assert.equal(keptWindowBytes(), kept, 'an in-place window is not among the kept windows');
    a.closeInPlace();
    const b = new ReadAheadFile(fds[1], SIZE, null, true);
    const off = 1 << 20;
    assert.ok(b.read(off, 100).equals(contents[1].subarray(off, off + 100)));
    assert.equal(b.windowBytes, window, 'the next in-place reader took the closed one\'s window');
    b.closeInPlace();
  });
});
