/**
 * gzip (RFC 1952) of a large input, compressed as several pieces at once on libuv's thread pool, the way pigz
 * does it: each piece is raw DEFLATE primed with the 32 KiB of input before it, so its back-references reach
 * into the previous piece as they would in one stream; every piece but the last ends on a sync flush (an empty
 * stored block: byte-aligned, not final) and the last ends the stream. In order they are one DEFLATE stream,
 * framed here with gzip's header and a trailer holding the CRC-32 and length of the whole input — one gzip
 * member, which every gzip reader accepts.
 *
 * The input may itself be a list of buffers (a long range query's answer is the envelope around slices of the
 * query threads' JSON), and the output is a list: neither is ever joined into one buffer, which for 40+ MB meant
 * touching as many fresh pages (~180 ms here). The answer goes to the socket piece by piece.
 *
 * Why pieces: a long range query's answer is 40+ MB of JSON; gzipped as one stream it kept one core busy for
 * hundreds of milliseconds while the other idled (docs/benchmarks.md, issue 12).
 */
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const gzip = promisify(zlib.gzip);

/** Smallest piece worth its own thread-pool task (a piece also loses a little ratio at its start). */
const GZIP_PIECE_MIN_BYTES = 4 * 1024 * 1024;
/** DEFLATE's window: what a piece may refer back to in the piece before it. */
const WINDOW_BYTES = 32 * 1024;
/**
 * Input is gathered into writes of this size: each write to a DEFLATE stream is a thread-pool round trip, and a
 * range query's answer is thousands of slices of a few bytes to some tens of KiB.
 */
const WRITE_BYTES = 256 * 1024;
/** A list of input buffers up to this size is joined when it goes in one piece. */
const JOIN_MAX_BYTES = 1024 * 1024;
/** zlib's output chunk: fewer, larger output pieces for the socket. */
const OUTPUT_CHUNK_BYTES = 256 * 1024;
/** gzip header: magic, DEFLATE, no flags, no time; the extra-flags byte is set per level; OS 3 (Unix), as zlib writes. */
const HEADER = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];

/**
 * `input` (one buffer, or the concatenation of a list) gzipped at `level`, in `pieces` pieces at once (default:
 * two per core, each at least `GZIP_PIECE_MIN_BYTES`: pieces compress at uneven speeds, and with more of them
 * than cores both cores stay busy to the end — 42 MB of range-query JSON at level 1 here, one stream 346–376 ms,
 * 2 pieces 254–317, 4 pieces 191–199). The gzip stream is the returned buffers in order.
 */
export async function gzipInPieces(input: Uint8Array | readonly Uint8Array[], level: number, pieces?: number): Promise<Buffer[]> {
  const parts = input instanceof Uint8Array ? [input] : input;
  let total = 0;
  for (const p of parts) total += p.byteLength;
  const n = Math.max(1, pieces ?? Math.min(2 * availableParallelism(), Math.floor(total / GZIP_PIECE_MIN_BYTES)));
  const size = Math.max(1, Math.ceil(total / n));
  // One piece: zlib's own gzip, on the list joined when that is cheap (a stream's set-up costs more there).
  if (n === 1 && (input instanceof Uint8Array || total <= JOIN_MAX_BYTES)) return [await gzip(input instanceof Uint8Array ? input : Buffer.concat(input, total), { level })];
  const deflated: Promise<Buffer[]>[] = [];
  const cursor = new Cursor(parts);
  for (let start = 0; start < total || start === 0; start += size) {
    const end = Math.min(total, start + size);
    const dictionary = start > 0 ? cursor.window(start) : null;
    deflated.push(deflateRange(cursor.range(start, end), level, end === total, dictionary));
    if (total === 0) break;
  }
  // Computed while the pieces compress (zlib's CRC-32 runs at several GB/s).
  let crc = 0;
  for (const p of parts) crc = zlib.crc32(p, crc);
  const header = Buffer.from(HEADER);
  // zlib's extra flags: 2 for the slowest level, 4 for the fastest ones.
  header[8] = level === 9 ? 2 : level < 2 ? 4 : 0;
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(total % 2 ** 32, 4);
  const out: Buffer[] = [header];
  for (const d of await Promise.all(deflated)) for (const b of d) out.push(b);
  out.push(trailer);
  return out;
}

/** Byte ranges of the concatenation of `parts`, as slices of them (ranges are asked for in increasing order). */
class Cursor {
  /** The part holding offset `at`, and the offset where that part starts. */
  private k = 0;
  private at = 0;
  constructor(private readonly parts: readonly Uint8Array[]) {}

  /** Slices covering [start, end). */
  range(start: number, end: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    while (this.k < this.parts.length && this.at + this.parts[this.k].byteLength <= start) this.at += this.parts[this.k++].byteLength;
    let k = this.k, at = this.at;
    while (k < this.parts.length && at < end) {
      const p = this.parts[k];
      const from = Math.max(0, start - at), to = Math.min(p.byteLength, end - at);
      if (to > from) out.push(from === 0 && to === p.byteLength ? p : p.subarray(from, to));
      at += p.byteLength;
      k++;
    }
    return out;
  }

  /** The (up to) `WINDOW_BYTES` before `start`, joined: it may span parts. */
  window(start: number): Uint8Array {
    const slices = this.range(Math.max(0, start - WINDOW_BYTES), start);
    return slices.length === 1 ? slices[0] : Buffer.concat(slices);
  }
}

/**
 * Raw DEFLATE of the slices in order, primed with `dictionary`; ends the stream when `last`, else on a sync flush.
 * The slices are copied into two buffers taken in turn, each refilled once zlib has consumed it: few thread-pool
 * round trips, and the copies land in memory already touched (all slices queued at once in fresh buffers cost
 * as much as joining them).
 */
async function deflateRange(slices: readonly Uint8Array[], level: number, last: boolean, dictionary: Uint8Array | null): Promise<Buffer[]> {
  const z = zlib.createDeflateRaw({
    level, chunkSize: OUTPUT_CHUNK_BYTES,
    finishFlush: last ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH,
    ...(dictionary !== null ? { dictionary } : {}),
  });
  const out: Buffer[] = [];
  const done = new Promise<Buffer[]>((resolve, reject) => {
    z.on('data', (b: Buffer) => out.push(b));
    z.on('end', () => resolve(out));
    z.on('error', reject);
  });
  let bytes = 0;
  for (const x of slices) bytes += x.byteLength;
  const size = Math.max(1, Math.min(WRITE_BYTES, bytes));
  const buffers = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
  const consumed: (Promise<void> | null)[] = [null, null];
  let cur = 0, used = 0;
  const flush = async (): Promise<void> => {
    const b = cur, n = used;
    consumed[b] = new Promise((resolve) => z.write(buffers[b].subarray(0, n), () => resolve()));
    cur ^= 1;
    used = 0;
    if (consumed[cur] !== null) await consumed[cur];
  };
  for (const s of slices) {
    for (let at = 0; at < s.byteLength;) {
      const n = Math.min(s.byteLength - at, size - used);
      buffers[cur].set(at === 0 && n === s.byteLength ? s : s.subarray(at, at + n), used);
      used += n;
      at += n;
      if (used === size) await flush();
    }
  }
  if (used > 0) await flush();
  z.end();
  return done;
}
