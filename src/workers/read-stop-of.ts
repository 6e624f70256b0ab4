/**
 * The ReadStop of a read call: its deadline and its stop word in this worker's shared stop words. Under
 * `TESSERA_TEST_HOOKS` with `TESSERA_TEST_SHARD_READ_STALL=1` every such read first stalls until it is stopped,
 * as a read over a data set too large to finish would: tests see whether cancellation reaches the worker.
 * `shutdownStopOf` is the shutdown word alone, for the worker's background work; with
 * `TESSERA_TEST_COMPACTION_STALL=1` its first read stalls until the shutdown, as a long compaction would.
 */
import { ReadStop } from '../engine/read-stop.ts';
import type { WorkerInit } from './protocol.ts';

let words: Int32Array | null | undefined;

function stopWords(ctx: WorkerInit): Int32Array | null {
  words ??= ctx.stopWords ? new Int32Array(ctx.stopWords) : null;
  return words;
}

export function readStopOf(deadlineMs: number | undefined, slot: number | undefined, ctx: WorkerInit): ReadStop {
  const stop = new ReadStop(deadlineMs ?? Infinity, stopWords(ctx), slot ?? 0);
  if (ctx.options.testStallReads === true) stallUntilStopped(stop);
  return stop;
}

/** Canceled once the node shuts down (word 0 of the stop words). */
export function shutdownStopOf(ctx: WorkerInit): { readonly canceled: boolean } {
  const stop = new ReadStop(Infinity, stopWords(ctx), 0);
  if (ctx.options.testStallCompaction !== true) return stop;
  let stalled = false;
  return { get canceled() { if (!stalled) { stalled = true; stallUntilStopped(stop); } return stop.canceled; } };
}

/** Blocks this thread until `stop` is canceled or past its deadline; the read's own first check then throws. */
function stallUntilStopped(stop: ReadStop): void {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  while (!stop.canceled && Date.now() <= stop.deadlineMs) Atomics.wait(nap, 0, 0, 5);
}
