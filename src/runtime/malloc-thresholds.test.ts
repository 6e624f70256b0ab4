/**
 * `holdAllocatorThresholds`, in a process of its own (the thresholds are process-wide). What holding the trim
 * threshold saves is a figure, not a test: it depends on where glibc placed every other block (docs/benchmarks.md,
 * issue 11). The mapping threshold shows in /proc/self/maps.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { holdAllocatorThresholds } from './malloc-trim.ts';

const isGlibc = process.platform === 'linux' && Boolean((process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime);

/** Sizes of the anonymous mappings of this process. */
function anonymousMappings(): number[] {
  const out: number[] = [];
  for (const line of readFileSync('/proc/self/maps', 'utf8').split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) rw-p 00000000 00:00 0\s*$/.exec(line);
    if (m) out.push(parseInt(m[2], 16) - parseInt(m[1], 16));
  }
  return out;
}

test('with the thresholds held, a 4 MB block comes from an arena, not a mapping of its own', { skip: isGlibc ? false : 'needs glibc (mallopt)' }, () => {
  assert.equal(holdAllocatorThresholds(), true);
  const before = new Set(anonymousMappings());
  const block = new Uint8Array(4 * 1024 * 1024).fill(1);
  // glibc maps a block above its mapping threshold on its own: the block, its header, rounded up to a page.
  const own = anonymousMappings().filter((n) => n === 4 * 1024 * 1024 + 4096 && !before.has(n));
  assert.deepEqual(own, [], 'a mapping of the block\'s size appeared');
  assert.equal(block[block.length - 1], 1);
});
