/**
 * `holdAllocatorThresholds`, in a process of its own: the thresholds are process-wide, and memory freed and
 * trimmed by another test would leave holes the allocations below reuse instead of the arena's top.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { holdAllocatorThresholds } from './malloc-trim.ts';

const anonBytes = (): number => Number(/RssAnon:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
const isGlibc = process.platform === 'linux' && Boolean((process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime);

test('with the thresholds held, freed memory leaves the process without a trim', { skip: isGlibc ? false : 'needs glibc (mallopt)' }, async () => {
  assert.equal(holdAllocatorThresholds(), true);
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const collect = async (below: number): Promise<void> => {
    gc();
    while (process.memoryUsage().arrayBuffers > below) { await new Promise((r) => setImmediate(r)); gc(); }
  };
  await collect(16 * 1024 * 1024);
  // A freed 24 MB mapping: left to itself, glibc would now keep up to 48 MB free at the top of the arena.
  let big: Uint8Array | null = new Uint8Array(24 * 1024 * 1024).fill(1);
  big = null;
  await collect(16 * 1024 * 1024);
  // 40 MB in 64 KB backing stores, below the mapping threshold: they come from the arena (filled, so resident).
  let keep: Uint8Array[] | null = [];
  for (let i = 0; i < 640; i++) keep.push(new Uint8Array(64 * 1024).fill(1));
  const before = anonBytes();
  keep = null;
  await collect(16 * 1024 * 1024);
  const released = before - anonBytes();
  assert.ok(released > 24 * 1024 * 1024, `released only ${Math.round(released / 1e6)} MB of ${Math.round(before / 1e6)} MB anonymous`);
});
