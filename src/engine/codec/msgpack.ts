/** The only module that imports msgpackr: encoding of messages that cross thread boundaries and LMDB values. */
import { Packr, addExtension, REUSE_BUFFER_MODE, RESET_BUFFER_MODE, RESERVE_START_SPACE } from 'msgpackr';

// Records mode off: messages are small ad-hoc objects whose shapes vary by op; plain maps keep them self-describing.
const packr = new Packr({ useRecords: false, moreTypes: true, int64AsType: 'number' });

export function pack(value: unknown): Buffer {
  return dropLargeSlab(packr.pack(value));
}

/**
 * Encoder slab kept between messages, at most. msgpackr encodes into one module-wide buffer, grows it for a
 * large message and keeps it at that size for good (up to 1 GB): the first scrape of a 100k-series target
 * (every label string goes to the shard workers once) left an 8.5 MB slab resident on the main thread. After
 * a message that needed more, the encoder gets a fresh small buffer; the large one lives on only while the
 * returned bytes (a view into it) do. Steady-state messages (samples by series ref) fit in the small one.
 */
export const SLAB_KEEP_BYTES = 1 << 20;
/**
 * The fresh slab is the largest one kept: msgpackr grows a slab to 4× what it has written, rounded up past a
 * page, so a 64 KiB slab grew twice for a bulk batch's ~400 KB message (into 260 KB, then 1 MiB + 4 KiB, just
 * over the limit) and was dropped again: two fresh arrays, their page faults and copies on every write batch.
 * Only the pages a message writes become resident.
 */
const FRESH_SLAB_BYTES = SLAB_KEEP_BYTES;

/** Gives the encoder a fresh small buffer when `out` was written into a slab larger than `SLAB_KEEP_BYTES`. */
function dropLargeSlab<T extends Uint8Array>(out: T): T {
  // Either Packr will do: the slab is shared by all instances of the module.
  if (out.buffer.byteLength > SLAB_KEEP_BYTES) packr.useBuffer(Buffer.allocUnsafeSlow(FRESH_SLAB_BYTES));
  return out;
}

/** Byte size of the encoder's current slab (for tests). */
export function encoderSlabBytes(): number {
  return packr.pack(null).buffer.byteLength;
}

/**
 * Messages between threads on the ring links (the bytes are valid until the next pack on this thread: callers
 * copy them at once), in records mode: each object shape's keys are written once per
 * message and its objects as values only. A write batch's 2,000 replies of one shape pack in 0.6× the time
 * and a third of the bytes, and unpack in about a quarter of the time. Each message carries its own record
 * definitions, and `unpack` (plain mode) reads them; the reverse does not hold (a records-mode reader takes
 * plain maps' small integers for record references), which is why records are only ever written here.
 */
const messagePackr = new Packr({ useRecords: true, moreTypes: true, int64AsType: 'number' });

export function packMessage(value: unknown): Buffer {
  const out = dropLargeSlab(messagePackr.pack(value));
  // Every caller copies a message at once (into a ring, or an array it transfers), so the next pack may
  // write over it: msgpackr otherwise moves on through its slab, and a ~400 KB write batch that no longer
  // fit in what was left of it made it allocate a fresh slab (a copy of the partial message, page faults)
  // every two or three batches. Only when the message is the last thing written to the current slab (not
  // a copy msgpackr made, not in a slab just replaced) is its space given back.
  if (out.byteOffset + out.byteLength === messagePackr.position) messagePackr.position = out.byteOffset;
  return out;
}

export function unpack<T = unknown>(bytes: Uint8Array): T {
  return packr.unpack(bytes) as T;
}

/** Encoder and decoder of msgpack records over a fixed list of shared record structures (`recordCodec`). */
export interface RecordCodec {
  /** A fresh Buffer holding the byte `lead`, then `value` packed. */
  packBehind(lead: number, value: unknown): Buffer;
  unpack(bytes: Uint8Array): unknown;
}

/**
 * `packBehind`'s encoding options: one byte reserved ahead of the value, the encoder's slab returned whole with
 * the bytes' `start` and `end` on it (no view of them is made), and its space given back at once (`packBehind`
 * copies the bytes out before it returns): the engine thread's values then cost one Buffer each, not two, and
 * stop filling — and replacing — the shared slab.
 */
const PACK_BEHIND_ONE_BYTE = REUSE_BUFFER_MODE | RESET_BUFFER_MODE | RESERVE_START_SPACE | 1;

/**
 * Records mode over `structures`, a fixed list of key lists (an on-disk format: append only): an object whose
 * keys are exactly one of them, in that order, is written as a one-byte reference and its values; any other
 * shape carries its own definition inline, so every encoded value decodes on its own and the shared list
 * never grows (nothing but the code has to remember it). Integers 0x40–0x7f, which records mode uses as
 * references, are written in two bytes, so `unpack` must be this codec's (not the plain one).
 */
export function recordCodec(structures: readonly (readonly string[])[]): RecordCodec {
  const opts = (): ConstructorParameters<typeof Packr>[0] => ({
    useRecords: true, moreTypes: true, int64AsType: 'number', structures: structures.map((s) => [...s]),
    maxSharedStructures: structures.length, shouldShareStructure: () => false,
  });
  const writer = new Packr(opts());
  const reader = new Packr(opts());
  return {
    packBehind(lead, v) {
      const slab = writer.pack(v, PACK_BEHIND_ONE_BYTE) as Buffer & { start: number; end: number };
      const out = Buffer.allocUnsafe(slab.end - slab.start);
      slab.copy(out, 0, slab.start, slab.end);
      out[0] = lead;
      return out;
    },
    unpack: (b) => reader.unpack(b),
  };
}

/**
 * A typed array that should cross a thread boundary beside the msgpack bytes (its buffer transferred, not
 * copied twice through the encoder). Only `packWithViews` sends it out of band; plain `pack` writes it inline.
 */
class OutOfBand { constructor(readonly view: ArrayBufferView) {} }

/** Marks `view` for out-of-band transfer; the receiver sees the typed array itself (hence the cast). */
export function outOfBand<T extends ArrayBufferView>(view: T): T {
  return new OutOfBand(view) as unknown as T;
}

// Set only for the duration of one synchronous pack/unpack call.
let sink: ArrayBufferView[] | null = null;
let source: readonly ArrayBufferView[] = [];

addExtension({
  Class: OutOfBand,
  type: 0x54,
  write: (o: OutOfBand) => (sink ? [1, sink.push(o.view) - 1] : [0, o.view]),
  read: (d: [number, unknown]) => (d[0] === 1 ? source[d[1] as number] : d[1]),
});

/** msgpack bytes plus the views marked with `outOfBand`, each owning its whole buffer (so it can be transferred). */
export interface PackedMessage { m: Uint8Array; x: ArrayBufferView[] }

export function packWithViews(value: unknown): PackedMessage {
  const x: ArrayBufferView[] = [];
  sink = x;
  let m: Uint8Array;
  try {
    // Copy out of msgpackr's shared slab so the bytes can be transferred too.
    m = new Uint8Array(dropLargeSlab(packr.pack(value)));
  } finally { sink = null; }
  for (let i = 0; i < x.length; i++) x[i] = owning(x[i]);
  return { m, x };
}

export function unpackWithViews<T = unknown>(msg: PackedMessage): T {
  source = msg.x;
  try { return packr.unpack(msg.m) as T; } finally { source = []; }
}

/** The buffers to list for transfer (each once); views that share a buffer with others were copied by `owning`. */
export function transferList(msg: PackedMessage): ArrayBuffer[] {
  const out: ArrayBuffer[] = [msg.m.buffer as ArrayBuffer];
  for (const v of msg.x) if (!out.includes(v.buffer as ArrayBuffer)) out.push(v.buffer as ArrayBuffer);
  return out;
}

/** A view that spans its whole (non-shared) buffer, copying when it is a window into a larger one. */
function owning(v: ArrayBufferView): ArrayBufferView {
  if (v.byteOffset === 0 && v.byteLength === v.buffer.byteLength && !(v.buffer instanceof SharedArrayBuffer)) return v;
  // Not zero-filled (every byte is copied over at once), and a Buffer made by Buffer.from: `new Buffer(ab)`
  // is the deprecated constructor, whose warning check and zeroed copy were 4% of a query thread's instant
  // query (the result JSON is a view of the encoder's buffer).
  const bytes = Buffer.allocUnsafeSlow(v.byteLength);
  bytes.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  if (Buffer.isBuffer(v)) return bytes;
  const Ctor = v.constructor as new (b: ArrayBufferLike) => ArrayBufferView;
  return new Ctor(bytes.buffer);
}
