/**
 * Batches of document calls between the main thread and a shard worker over two SPSC rings (requests to the
 * worker, replies back), instead of Piscina's postMessage path. A search is one batch to each worker and its
 * reply; on that path Piscina's task bookkeeping, the MessagePort's structured clone and the event dispatch
 * of each message were about 13% of the main thread's CPU per search (perf, 1M docs, 2-term AND), before
 * any search work. The ring moves msgpack bytes and wakes a side only when it sleeps.
 *
 * A message is one or more frames `[u32 id][u32 more][bytes]` (little-endian; `more` = 1 when further frames
 * of the same message follow), so a message larger than a frame crosses a ring smaller than itself. Frames of
 * one message are written in order and together (`writeFrames`), so they never interleave with another's.
 * Nothing of it is on disk; docs/architecture.md (`pool.ts`) describes the link.
 */
import { SpscProducer, SpscRing } from '../engine/queue/spsc-ring.ts';

/** Ring data area per direction and worker: a reply larger than it still crosses, in frames, as space frees. */
export const LINK_RING_BYTES = 1 << 20;
/** Largest frame payload: a quarter of the ring, so a large message streams while the reader drains. */
export const FRAME_MAX = LINK_RING_BYTES / 4 - 8;

/** The shared memory of one main-thread ↔ worker link, sent to the worker by its attach task. */
export interface LinkBuffers { requests: SharedArrayBuffer; replies: SharedArrayBuffer }

export function createLinkBuffers(): LinkBuffers {
  return { requests: SpscRing.create(LINK_RING_BYTES).buffer, replies: SpscRing.create(LINK_RING_BYTES).buffer };
}

/**
 * Writes message `bytes` under `id` through `producer`. Copies `bytes` before returning, so the caller may
 * reuse them (msgpackr's shared output buffer) at once; resolves when the last frame is in the ring.
 */
export function writeFrames(producer: SpscProducer, id: number, bytes: Uint8Array): Promise<void> {
  let written: Promise<void>;
  let off = 0;
  do {
    const n = Math.min(FRAME_MAX, bytes.byteLength - off);
    const frame = new Uint8Array(8 + n);
    const view = new DataView(frame.buffer);
    view.setUint32(0, id, true);
    view.setUint32(4, off + n < bytes.byteLength ? 1 : 0, true);
    frame.set(bytes.subarray(off, off + n), 8);
    written = producer.write(frame);
    off += n;
  } while (off < bytes.byteLength);
  return written;
}

/** Reassembles frames into messages. */
export class FrameReader {
  private readonly partial = new Map<number, Uint8Array[]>();

  /** Takes one frame; returns its message's id and bytes once the message is complete, else null. */
  take(frame: Uint8Array): { id: number; bytes: Uint8Array } | null {
    const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
    const id = view.getUint32(0, true), more = view.getUint32(4, true) === 1;
    const payload = frame.subarray(8);
    const parts = this.partial.get(id);
    if (more) {
      if (parts) parts.push(payload); else this.partial.set(id, [payload]);
      return null;
    }
    if (!parts) return { id, bytes: payload };
    this.partial.delete(id);
    parts.push(payload);
    let len = 0;
    for (const p of parts) len += p.byteLength;
    const bytes = new Uint8Array(len);
    let at = 0;
    for (const p of parts) { bytes.set(p, at); at += p.byteLength; }
    return { id, bytes };
  }
}

/** Reads `ring` until it is closed and drained, handing each complete message to `onMessage`. */
export async function readMessages(ring: SpscRing, onMessage: (id: number, bytes: Uint8Array) => void): Promise<void> {
  const frames = new FrameReader();
  for (;;) {
    let f: Uint8Array | null;
    while ((f = ring.tryRead()) !== null) {
      const m = frames.take(f);
      if (m) onMessage(m.id, m.bytes);
    }
    if (ring.closed) return;
    await ring.waitReadable();
  }
}
