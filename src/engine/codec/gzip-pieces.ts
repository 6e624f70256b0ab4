/**
 * gzip (RFC 1952) of a large buffer, compressed as several pieces at once on libuv's thread pool, the way pigz
 * does it: each piece is raw DEFLATE primed with the 32 KiB of input before it, so its back-references reach
 * into the previous piece as they would in one stream; every piece but the last ends on a sync flush (an empty
 * stored block: byte-aligned, not final) and the last ends the stream. Concatenated they are one DEFLATE stream,
 * framed here with gzip's header and a trailer holding the CRC-32 and length of the whole input — one gzip
 * member, which every gzip reader accepts.
 *
 * Why: a long range query's answer is 40+ MB of JSON; gzipped as one stream it kept one core busy for hundreds
 * of milliseconds while the other idled (docs/benchmarks.md, issue 12).
 */
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const deflateRaw = promisify(zlib.deflateRaw);
const gzip = promisify(zlib.gzip);

/** Smallest piece worth its own thread-pool task (a piece also loses a little ratio at its start). */
const GZIP_PIECE_MIN_BYTES = 4 * 1024 * 1024;
/** DEFLATE's window: what a piece may refer back to in the piece before it. */
const WINDOW_BYTES = 32 * 1024;
/** gzip header: magic, DEFLATE, no flags, no time; the extra-flags byte is set per level; OS 3 (Unix), as zlib writes. */
const HEADER = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];

/**
 * `input` gzipped at `level`, in `pieces` pieces at once (default: two per core, each at least
 * `GZIP_PIECE_MIN_BYTES`: pieces compress at uneven speeds, and with more of them than cores both cores stay busy
 * to the end — 42 MB of range-query JSON at level 1 here, one stream 346–376 ms, 2 pieces 254–317, 4 pieces
 * 191–199); a single piece is zlib's own gzip.
 */
export async function gzipInPieces(input: Uint8Array, level: number, pieces = Math.min(2 * availableParallelism(), Math.floor(input.byteLength / GZIP_PIECE_MIN_BYTES))): Promise<Buffer> {
  if (pieces <= 1) return gzip(input, { level });
  const size = Math.ceil(input.byteLength / pieces);
  const parts: Promise<Buffer>[] = [];
  for (let start = 0; start < input.byteLength; start += size) {
    const end = Math.min(input.byteLength, start + size);
    const last = end === input.byteLength;
    parts.push(deflateRaw(input.subarray(start, end), {
      level,
      finishFlush: last ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH,
      ...(start > 0 ? { dictionary: input.subarray(Math.max(0, start - WINDOW_BYTES), start) } : {}),
    }));
  }
  // Computed while the pieces compress (zlib's CRC-32 runs at several GB/s).
  const crc = zlib.crc32(input);
  const header = Buffer.from(HEADER);
  // zlib's extra flags: 2 for the slowest level, 4 for the fastest ones.
  header[8] = level === 9 ? 2 : level < 2 ? 4 : 0;
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(input.byteLength % 2 ** 32, 4);
  return Buffer.concat([header, ...(await Promise.all(parts)), trailer]);
}
