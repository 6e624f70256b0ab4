/**
 * How `evaluateInHalves` ends when a half fails: with the query's own error (cancelled or past its deadline),
 * or with null, which makes the caller evaluate the query whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QueryTimeoutError, EngineError } from '../../engine/errors.ts';
import { evaluateInHalves, type HalfAnswer } from './range-split.ts';

const STEP = 60_000;

/** The earlier half fails with `err`; the later one waits until it is stopped, and reports what stopped it. */
function failingEarlierHalf(err: Error): { evaluateHalf: (s: number, e: number, signal: AbortSignal) => Promise<HalfAnswer>; stoppedBy: Promise<unknown> } {
  let stopped!: (reason: unknown) => void;
  const stoppedBy = new Promise<unknown>((r) => { stopped = r; });
  const evaluateHalf = (startMs: number, _endMs: number, signal: AbortSignal): Promise<HalfAnswer> => {
    if (startMs === 0) return Promise.reject(err);
    return new Promise((_, reject) => signal.addEventListener('abort', () => { stopped(signal.reason); reject(signal.reason); }, { once: true }));
  };
  return { evaluateHalf, stoppedBy };
}

test('a half stopped by the deadline before the query\'s own timer fired fails the query with that error', async () => {
  // The evaluating thread's deadline check answered first: the query's signal has not aborted yet.
  const timedOut = new QueryTimeoutError('QUERY_TIMEOUT', 'query timed out in expression evaluation');
  const { evaluateHalf, stoppedBy } = failingEarlierHalf(timedOut);
  await assert.rejects(evaluateInHalves(0, 10 * STEP, STEP, new AbortController().signal, Date.now() - 1, evaluateHalf), (e) => e === timedOut);
  assert.equal(await stoppedBy, timedOut);
});

test('a half failing before the deadline for a reason of its own resolves null (the query is then evaluated whole)', async () => {
  const ownLimit = new EngineError('PROMQL_EXECUTION', 'query processing would load too many samples into memory in query execution');
  const { evaluateHalf, stoppedBy } = failingEarlierHalf(ownLimit);
  assert.equal(await evaluateInHalves(0, 10 * STEP, STEP, new AbortController().signal, Date.now() + 60_000, evaluateHalf), null);
  assert.equal(await stoppedBy, ownLimit);
});

test('a cancelled query fails with its own reason, whatever its halves failed with', async () => {
  const query = new AbortController();
  const canceled = new Error('canceled');
  const halves = evaluateInHalves(0, 10 * STEP, STEP, query.signal, Date.now() + 60_000,
    (_s, _e, signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('half stopped')), { once: true })));
  query.abort(canceled);
  await assert.rejects(halves, (e) => e === canceled);
});
