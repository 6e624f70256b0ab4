/**
 * When a long read in a shard worker (a PromQL select, an ES shard search) stops: past its wall-clock deadline
 * (timed out), or once another thread sets its word in a shared `Int32Array` (canceled: its client went away),
 * or word 0 of that array (the node is shutting down: every read stops). Checked by the loops that can run
 * long, every few hundred iterations, so an abandoned read frees its worker within moments.
 */
import { QueryCanceledError, QueryTimeoutError, formatMessage } from './errors.ts';

export class ReadStop {
  /** A read with no deadline and nothing to cancel it. */
  static readonly NEVER = new ReadStop(Infinity, null, 0);

  /**
   * @param deadlineMs Date.now() ms after which the read times out (Infinity: none).
   * @param words the worker's shared stop words, or null; word 0 stops every read.
   * @param slot this read's own word (0: none of its own).
   */
  constructor(readonly deadlineMs: number, private readonly words: Int32Array | null, private readonly slot: number) {}

  /** Whether the read was canceled (its own word or the shutdown word set). */
  get canceled(): boolean {
    const w = this.words;
    return w !== null && (Atomics.load(w, 0) !== 0 || (this.slot !== 0 && Atomics.load(w, this.slot) !== 0));
  }

  /** Throws QueryCanceledError or QueryTimeoutError naming `phase` once the read should stop. */
  check(phase: string): void {
    if (this.canceled) throw new QueryCanceledError('QUERY_CANCELED', formatMessage('QUERY_CANCELED', [phase]));
    if (Date.now() > this.deadlineMs) throw new QueryTimeoutError('QUERY_TIMEOUT', formatMessage('QUERY_TIMEOUT', [phase]));
  }
}
