import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { FREED_BYTES, GROWN_BYTES, MIN_INTERVAL_MS, releaseAfterTasks, startLargeTaskRelease, type TaskEndState } from './large-task-release.ts';
import { releaseNow } from './release-buffers.ts';

const MB = 1 << 20;
const large: TaskEndState = { tasksRunning: 0, heapGrownBytes: GROWN_BYTES, freedBytes: FREED_BYTES, msSinceCollect: MIN_INTERVAL_MS, msSinceTrim: MIN_INTERVAL_MS };

// [what, changes, collects, trims]
const CASES: [string, Partial<TaskEndState>, boolean, boolean][] = [
  ['the last task grew the heap and freed buffers', {}, true, true],
  ['another task still runs', { tasksRunning: 1 }, false, false],
  ['the heap grew too little', { heapGrownBytes: GROWN_BYTES - 1 }, false, true],
  ['the heap shrank', { heapGrownBytes: -64 * MB }, false, true],
  ['too few buffers freed', { freedBytes: FREED_BYTES - 1 }, true, false],
  ['collected less than the interval ago', { msSinceCollect: MIN_INTERVAL_MS - 1 }, false, true],
  ['trimmed less than the interval ago', { msSinceTrim: MIN_INTERVAL_MS - 1 }, true, false],
];

for (const [what, change, collects, trims] of CASES) {
  test(`large-task release: ${what} → ${collects ? 'collects' : 'no collection'}, ${trims ? 'trims' : 'no trim'}`, () => {
    assert.deepEqual(releaseAfterTasks({ ...large, ...change }), { collect: collects, trim: trims });
  });
}

const forcedMajor = (e: PerformanceEntry): boolean => {
  const d = (e as PerformanceEntry & { detail: { kind: number; flags: number } }).detail;
  return d.kind === constants.NODE_PERFORMANCE_GC_MAJOR && (d.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0;
};

test('tasks that grew the heap by the threshold end with a full collection, once their last one is answered', { timeout: 30_000 }, async () => {
  let heap = 100 * MB;
  let clock = 0;
  let forced = 0;
  const obs = new PerformanceObserver((list) => { forced += list.getEntries().filter(forcedMajor).length; });
  obs.observe({ entryTypes: ['gc'] });
  const turns = async (n: number) => { for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r)); };
  try {
    const release = startLargeTaskRelease(() => heap, () => clock);
    release.started();
    release.started();
    heap += GROWN_BYTES;
    release.ended();
    await turns(4);
    assert.equal(forced, 0, 'not while a task still runs');
    release.ended();
    // Entries reach the observer after the collection; a bounded number of turns, no clock.
    for (let i = 0; i < 200 && forced === 0; i++) await turns(1);
    assert.equal(forced, 1);
    // Grown again, but within the interval: no second collection until it has passed.
    release.started(); heap += GROWN_BYTES; clock += MIN_INTERVAL_MS - 1; release.ended();
    release.started(); heap += GROWN_BYTES; clock += 1; release.ended();
    for (let i = 0; i < 200 && forced === 1; i++) await turns(1);
    assert.equal(forced, 2);
  } finally { obs.disconnect(); }
});

const anonBytes = (): number => Number(/RssAnon:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
const isGlibc = process.platform === 'linux' && Boolean((process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime);

test('buffers a task freed through their ports leave the process once it is answered', { skip: isGlibc ? false : 'needs glibc (malloc_trim)', timeout: 30_000 }, async () => {
  // 64 MB of 16 KB backing stores, written to (calloc'd pages untouched are not resident), every other one kept:
  // the freed ones are holes inside the arenas, which glibc does not hand back by itself (only an arena's top)
  // and malloc_trim does.
  const freed: ArrayBuffer[] = [];
  const kept: ArrayBuffer[] = [];
  for (let i = 0; i < 4096; i++) {
    const b = new ArrayBuffer(16 * 1024);
    new Uint8Array(b).fill(1);
    (i % 2 === 0 ? kept : freed).push(b);
  }
  const bytes = freed.length * 16 * 1024;
  const release = startLargeTaskRelease();
  release.started();
  const before = anonBytes();
  releaseNow(freed);
  release.ended(bytes);
  let released = 0;
  for (let i = 0; i < 50 && released < 24 * MB; i++) {
    await new Promise((r) => setImmediate(r));
    released = before - anonBytes();
  }
  assert.ok(released >= 24 * MB, `released only ${Math.round(released / 1e6)} MB of ${Math.round(bytes / 1e6)} MB freed`);
  // Read here so that the kept buffers, which make the holes, live until the measurement is taken.
  assert.equal(kept.length, 2048);
});
