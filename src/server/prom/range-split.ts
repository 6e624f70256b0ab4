/**
 * A range query evaluated as two halves of its steps at once, one on each query thread (issue 12, "both
 * cores"): each half fetches its own selectors' data for its own sub-range and evaluates on its own thread,
 * and the two answers are spliced into exactly the whole query's (`mergeMatrixJson`). Worth it only when
 * the threads would otherwise idle: the caller splits a long query when no other query runs or waits.
 */
import { mergeMatrixJson } from '../../engine/promql/index.ts';
import type { PromqlEvalReply } from '../../workers/protocol.ts';

/** One half's answer, and when its data was fetched (`performance.now()`). */
export interface HalfAnswer { reply: PromqlEvalReply; prepared: number }

/** The whole query's answer from its halves: `json` is pieces to be concatenated. */
export interface SplitAnswer { json: Uint8Array[]; evalMs: number; samples: number; prepared: number }

/**
 * Evaluates `[startMs, endMs]` as its earlier and later steps, `evaluateHalf` running each (fetch and
 * evaluation) under a signal that aborts when `query` does or when the other half failed. Resolves null when
 * a half failed for any other reason than the query's own cancellation or deadline (`deadlineMs`, Date.now()
 * ms): such an error may depend on the split (each half's own sample limit, which step failed first), so the
 * caller evaluates the query whole, which gives what it gives unsplit.
 */
export async function evaluateInHalves(startMs: number, endMs: number, stepMs: number, query: AbortSignal, deadlineMs: number,
  evaluateHalf: (startMs: number, endMs: number, signal: AbortSignal) => Promise<HalfAnswer>): Promise<SplitAnswer | null> {
  const steps = Math.floor((endMs - startMs) / stepMs) + 1;
  const laterStartMs = startMs + Math.floor(steps / 2) * stepMs;
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(query.reason);
  if (query.aborted) onAbort(); else query.addEventListener('abort', onAbort, { once: true });
  try {
    const halves = [evaluateHalf(startMs, laterStartMs - stepMs, stop.signal), evaluateHalf(laterStartMs, endMs, stop.signal)];
    // The first failure stops the other half, whose answer is not needed any more.
    for (const h of halves) h.catch((err: unknown) => stop.abort(err));
    const [a, b] = await Promise.allSettled(halves);
    if (a.status === 'fulfilled' && b.status === 'fulfilled') {
      const earlier = a.value, later = b.value;
      return {
        json: mergeMatrixJson({ json: earlier.reply.json, index: earlier.reply.index! }, { json: later.reply.json, index: later.reply.index! }),
        // The halves evaluate at the same time: the query's evaluation took as long as the longer one.
        evalMs: Math.max(earlier.reply.evalMs, later.reply.evalMs),
        samples: earlier.reply.samples + later.reply.samples,
        prepared: Math.max(earlier.prepared, later.prepared),
      };
    }
    if (query.aborted) throw query.reason;
    // A half stopped by the deadline (the evaluating thread checks it too, and its answer can come back
    // before this thread's timer has aborted `query`) is the query's own deadline: evaluated whole, the query
    // would start past it and fail in its fetch instead. The first failure is what stopped the other half.
    if (Date.now() >= deadlineMs) throw stop.signal.reason;
    return null;
  } finally {
    query.removeEventListener('abort', onAbort);
  }
}
