/**
 * DEFLATE of small buffers (raw, RFC 1951, and gzip, RFC 1952) through one zlib stream per thread and kind,
 * reset between buffers.
 *
 * `zlib.inflateRawSync`/`deflateRawSync`/`gzipSync` build a new stream for every call: its native state, a
 * 32 KiB window and an output chunk. For the stored-field blocks of a search's hits (8 KiB each) that set-up cost
 * more than the decompression itself: 15.5 µs per block against 4.5 µs with a reused stream (measured here on
 * an 8 KiB block); the same holds for gzipping a search's few-KB reply.
 *
 * Node's public zlib API has no reusable synchronous call, so this drives the stream's native handle directly
 * (`_handle.writeSync`, as node's own `zlib.js` does for its sync functions). Where that handle is missing
 * (another runtime or a future node), and for blocks whose output does not fit the reused buffer, the public
 * one-shot functions take over; both produce the same bytes.
 */
import zlib from 'node:zlib';

/** Output buffer of the reused streams; larger results go through the one-shot functions. */
const OUT_BYTES = 64 * 1024;

interface NativeZlib {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  reset(): void;
  onerror: (message: string, errno: number, code?: string) => void;
}

class ReusedStream {
  private readonly handle: NativeZlib | null;
  /** Held so the stream that owns the handle lives as long as this. */
  readonly stream: zlib.DeflateRaw | zlib.InflateRaw | zlib.Gzip;
  /** [avail_out, avail_in] after each write (node's `_writeState`). */
  private readonly state: Uint32Array | null;
  private readonly out = new Uint8Array(OUT_BYTES);
  private failure: string | null = null;

  constructor(stream: zlib.DeflateRaw | zlib.InflateRaw | zlib.Gzip) {
    this.stream = stream;
    const internals = stream as unknown as { _handle?: NativeZlib; _writeState?: Uint32Array };
    const ok = typeof internals._handle?.writeSync === 'function' && typeof internals._handle?.reset === 'function' && internals._writeState instanceof Uint32Array;
    this.handle = ok ? internals._handle! : null;
    this.state = ok ? internals._writeState! : null;
    if (this.handle) this.handle.onerror = (message, _errno, code) => { this.failure = `${message} (${code ?? 'zlib error'})`; };
  }

  /**
   * The whole output of `input`, in this stream's reused buffer (valid until the next call on this thread), or
   * null when it does not fit (or the handle is unavailable): then the caller uses the one-shot function.
   * Throws with zlib's message on malformed input.
   */
  run(input: Uint8Array): Uint8Array | null {
    const h = this.handle;
    if (h === null) return null;
    this.failure = null;
    h.writeSync(zlib.constants.Z_FINISH, input, 0, input.byteLength, this.out, 0, OUT_BYTES);
    const availOut = this.state![0], availIn = this.state![1];
    h.reset();
    if (this.failure !== null) throw new Error(this.failure);
    // A full buffer may have cut the output short.
    if (availOut === 0 || availIn !== 0) return null;
    return this.out.subarray(0, OUT_BYTES - availOut);
  }

  /**
   * As `run`, but stops once `enough(out, len)` says the output so far suffices, asked after every `step`
   * bytes; `complete` says whether the stream ended. Null as for `run`.
   */
  runPrefix(input: Uint8Array, step: number, enough: (out: Uint8Array, len: number) => boolean): InflatedPrefix | null {
    const h = this.handle;
    if (h === null) return null;
    this.failure = null;
    let inOff = 0, inLen = input.byteLength, outLen = 0;
    try {
      for (;;) {
        const room = Math.min(step, OUT_BYTES - outLen);
        if (room === 0) return null;
        h.writeSync(zlib.constants.Z_FINISH, input, inOff, inLen, this.out, outLen, room);
        if (this.failure !== null) throw new Error(this.failure);
        const availOut = this.state![0], availIn = this.state![1];
        inOff += inLen - availIn;
        inLen = availIn;
        outLen += room - availOut;
        // Room left over means the stream ended; input left over then is not part of it (as in `run`).
        if (availOut !== 0) return availIn === 0 ? { out: this.out.subarray(0, outLen), complete: true } : null;
        if (enough(this.out, outLen)) return { out: this.out.subarray(0, outLen), complete: false };
      }
    } finally {
      h.reset();
    }
  }
}

/** The start of an inflated stream, in the reused buffer; `complete` when it is the whole of it. */
export interface InflatedPrefix { out: Uint8Array; complete: boolean }

let inflater: ReusedStream | null = null;
const deflaters = new Map<number, ReusedStream>();
const gzippers = new Map<number, ReusedStream>();

/** Inflates a raw DEFLATE stream; the result may be a view of a buffer the next call on this thread reuses. */
export function inflateRawTransient(input: Uint8Array): Uint8Array {
  inflater ??= new ReusedStream(zlib.createInflateRaw());
  return inflater.run(input) ?? zlib.inflateRawSync(input, { chunkSize: OUT_BYTES });
}

/**
 * Inflates a raw DEFLATE stream only as far as its reader needs (a stored-field block up to the entry asked
 * for): `enough(out, len)` is asked after every `step` bytes of output. Without the reused stream, the whole
 * stream is inflated. The output may be a view of a buffer the next call on this thread reuses.
 */
export function inflateRawPrefix(input: Uint8Array, step: number, enough: (out: Uint8Array, len: number) => boolean): InflatedPrefix {
  inflater ??= new ReusedStream(zlib.createInflateRaw());
  return inflater.runPrefix(input, step, enough) ?? { out: zlib.inflateRawSync(input, { chunkSize: OUT_BYTES }), complete: true };
}

/** Deflates `input` at zlib `level`; the result may be a view of a buffer the next call on this thread reuses. */
export function deflateRawTransient(input: Uint8Array, level: number): Uint8Array {
  let d = deflaters.get(level);
  if (!d) { d = new ReusedStream(zlib.createDeflateRaw({ level })); deflaters.set(level, d); }
  return d.run(input) ?? zlib.deflateRawSync(input, { level });
}

/** Gzips `input` at zlib `level`; the result may be a view of a buffer the next call on this thread reuses. */
export function gzipTransient(input: Uint8Array, level: number): Uint8Array {
  let g = gzippers.get(level);
  if (!g) { g = new ReusedStream(zlib.createGzip({ level })); gzippers.set(level, g); }
  return g.run(input) ?? zlib.gzipSync(input, { level });
}
