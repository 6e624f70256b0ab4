/**
 * The ReadStop of a read call: its deadline and its stop word in this worker's shared stop words. Under
 * `TESSERA_TEST_HOOKS` with `TESSERA_TEST_SHARD_READ_STALL=1` every such read first stalls until it is stopped,
 * as a read over a data set too large to finish would: tests see whether cancellation reaches the worker.
 */
import { ReadStop } from '../engine/read-stop.ts';
import type { WorkerInit } from './protocol.ts';

let words: Int32Array | null | undefined;

export function readStopOf(deadlineMs: number | undefined, slot: number | undefined, ctx: WorkerInit): ReadStop {
  words ??= ctx.stopWords ? new Int32Array(ctx.stopWords) : null;
  const stop = new ReadStop(deadlineMs ?? Infinity, words, slot ?? 0);
  if (ctx.options.testStallReads === true) stallUntilStopped(stop);
  return stop;
}

/** Blocks this thread until `stop` is canceled or past its deadline; the read's own first check then throws. */
function stallUntilStopped(stop: ReadStop): void {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  while (!stop.canceled && Date.now() <= stop.deadlineMs) Atomics.wait(nap, 0, 0, 5);
}
