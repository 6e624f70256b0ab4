/**
 * Frees ArrayBuffers that nothing will read again now, rather than at the thread's next garbage collection.
 * Node 20 has no `ArrayBuffer.prototype.transfer`; a buffer transferred into a message that is never received
 * is freed when the channel's ports close (within this thread's next event-loop turns), with no collection.
 * The buffers are detached: views of them read as empty afterwards.
 *
 * A query thread receives its query's selected chunks transferred (70 MB for a 30-day range query) and is done
 * with them once it has answered; V8 collects them only when the thread allocates again or its idle collector
 * runs, so they stayed resident for up to a second after the answer (docs/benchmarks.md, issue 11).
 */
import { MessageChannel } from 'node:worker_threads';

/**
 * Frees `buffers` (each listed once). Buffers Node marks untransferable (its `Buffer` pool) are left as they
 * are, for the collector, as is everything when the transfer fails.
 */
export function releaseNow(buffers: ArrayBuffer[]): void {
  if (buffers.length === 0) return;
  const { port1, port2 } = new MessageChannel();
  try {
    port1.postMessage(null, buffers);
  } catch {
    // Not transferable: the collector frees them as before.
  } finally {
    port1.close();
    port2.close();
  }
}
