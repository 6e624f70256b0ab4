/**
 * `holdAllocatorThresholds` in a process of its own (the thresholds are process-wide). What holding them saves is
 * a figure, not a test: it depends on where glibc placed every other block (docs/benchmarks.md, issue 11).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { holdAllocatorThresholds } from './malloc-trim.ts';

const isGlibc = process.platform === 'linux' && Boolean((process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime);

test('glibc takes both held thresholds', { skip: isGlibc ? false : 'needs glibc (mallopt)' }, () => {
  // mallopt refuses a mapping threshold above half its arena size (32 MB on 64-bit systems) with 0.
  assert.equal(holdAllocatorThresholds(), true);
  assert.equal(holdAllocatorThresholds(), true, 'and again: the call may come once per node started in a process');
});
