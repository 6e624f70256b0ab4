/**
 * Batches of document calls between the main thread and a shard worker over two SPSC rings (requests to the
 * worker, replies back), instead of Piscina's postMessage path. A search is one batch to each worker and its
 * reply; on that path Piscina's task bookkeeping, the MessagePort's structured clone and the event dispatch
 * of each message were about 13% of the main thread's CPU per search (perf, 1M docs, 2-term AND), before
 * any search work. The ring moves msgpack bytes and wakes a side only when it sleeps.
 *
 * A message is one or more frames `[u32 id][u32 rest][bytes]` (little-endian; `rest` = how many bytes of the
 * same message follow in later frames, 0 in its last), so a message larger than a frame crosses a ring smaller
 * than itself, and its first frame says how large it is. Frames of one message are written in order and
 * together (`writeFrames`), so they never interleave with another's.
 *
 * Neither side builds a frame or a copy of it: the writer puts the header and a slice of the message into the
 * ring as one message, and the reader copies each frame's bytes straight into the message's own array,
 * allocated once from its first frame. Fresh memory is dear here (a first touch of a page costs ~15 µs on this
 * project's virtual machines), and a bulk batch's frames and their reassembly were three fresh arrays of its
 * size on the worker's side.
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

const header = new Uint8Array(8);
const headerView = new DataView(header.buffer);

/**
 * Writes message `bytes` under `id` through `producer`. Copies `bytes` before returning, so the caller may
 * reuse them (msgpackr's shared output buffer) at once; resolves when the last frame is in the ring.
 */
export function writeFrames(producer: SpscProducer, id: number, bytes: Uint8Array): Promise<void> {
  let written: Promise<void>;
  let off = 0;
  do {
    const n = Math.min(FRAME_MAX, bytes.byteLength - off);
    headerView.setUint32(0, id, true);
    headerView.setUint32(4, bytes.byteLength - off - n, true);
    written = producer.write(header, bytes.subarray(off, off + n));
    off += n;
  } while (off < bytes.byteLength);
  return written;
}

/** Reassembles frames into messages. */
export class FrameReader {
  /** Messages whose later frames are still to come: their array and how much of it is filled. */
  private readonly partial = new Map<number, { bytes: Uint8Array; at: number }>();
  private readonly head = new Uint8Array(8);
  private readonly headView = new DataView(this.head.buffer);

  /**
   * Takes the next frame of `ring` (there must be one); returns its message's id and bytes once the message is
   * complete, else null.
   */
  readFrom(ring: SpscRing): { id: number; bytes: Uint8Array } | null {
    const len = ring.nextLength() - 8;
    ring.copyNext(0, 8, this.head, 0);
    const id = this.headView.getUint32(0, true), rest = this.headView.getUint32(4, true);
    let p = this.partial.get(id);
    if (!p) p = { bytes: new Uint8Array(len + rest), at: 0 };
    ring.copyNext(8, len, p.bytes, p.at);
    ring.consumeNext();
    p.at += len;
    if (rest > 0) { this.partial.set(id, p); return null; }
    this.partial.delete(id);
    return { id, bytes: p.bytes };
  }
}

/** Reads `ring` until it is closed and drained, handing each complete message to `onMessage`. */
export async function readMessages(ring: SpscRing, onMessage: (id: number, bytes: Uint8Array) => void): Promise<void> {
  const frames = new FrameReader();
  for (;;) {
    while (ring.nextLength() >= 0) {
      const m = frames.readFrom(ring);
      if (m) onMessage(m.id, m.bytes);
    }
    if (ring.closed) return;
    await ring.waitReadable();
  }
}
