/**
 * Compressed request bodies (`Content-Encoding: gzip` or `deflate`), as Elasticsearch has accepted since 5.0 and
 * the JS client's `compression`, Python's `http_compress`, Logstash and Beats send. The body limit applies to
 * the inflated bytes, so a small compressed body that inflates past it is refused like a large plain one.
 * Other encodings (Prometheus remote write's `snappy`) are left to the route that speaks them.
 *
 * Replies: a listener that compresses (the documents API, as Elasticsearch's `http.compression`) gzips bodies
 * of at least `MIN_COMPRESS_BYTES` for clients that accept gzip, at Elasticsearch's default level 3.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { gzipTransient } from '../engine/codec/zlib-reuse.ts';
import { gzipInPieces } from '../engine/codec/gzip-pieces.ts';
import { bodyBytes, bodyLength, type ReplyBody } from './reply-body.ts';

const gunzip = promisify(zlib.gunzip);
/** Smaller bodies gain nothing worth the CPU and the header bytes. */
const MIN_COMPRESS_BYTES = 1024;
/** `http.compression_level`'s default. */
const COMPRESSION_LEVEL = 3;
/** Replies up to this size are gzipped synchronously (tens of µs at level 3). */
const SYNC_GZIP_MAX_BYTES = 64 * 1024;
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);

export type Inflated =
  | { kind: 'ok'; body: Buffer }
  | { kind: 'too-large' }
  | { kind: 'bad'; reason: string };

/** True when `encoding` (a Content-Encoding value) is one this module inflates. */
export function isInflatable(encoding: string | undefined): boolean {
  if (!encoding) return false;
  const e = encoding.trim().toLowerCase();
  return e === 'gzip' || e === 'x-gzip' || e === 'deflate';
}

export async function inflateBody(encoding: string, body: Buffer, limitBytes: number): Promise<Inflated> {
  const e = encoding.trim().toLowerCase();
  const opts = { maxOutputLength: Math.max(1, limitBytes) };
  try {
    if (e === 'deflate') {
      // HTTP's "deflate" is zlib-wrapped, but some clients send raw DEFLATE: the zlib header tells them apart.
      const zlibWrapped = body.length >= 2 && (body[0] & 0x0f) === 8 && ((body[0] << 8) | body[1]) % 31 === 0;
      return { kind: 'ok', body: await (zlibWrapped ? inflate : inflateRaw)(body, opts) };
    }
    return { kind: 'ok', body: await gunzip(body, opts) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return { kind: 'too-large' };
    return { kind: 'bad', reason: `failed to decompress the ${e} request body: ${(err as Error).message}` };
  }
}

/** Whether a reply should be gzipped for a client whose Accept-Encoding is `accept`. */
export function wantsGzip(r: { body?: ReplyBody; headers?: Record<string, string> }, accept: string | undefined): boolean {
  if (!accept || r.body === undefined || r.headers?.['content-encoding']) return false;
  if (bodyLength(r.body) < MIN_COMPRESS_BYTES) return false;
  return accept.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.find((x) => x.trim().startsWith('q='));
    return (coding === 'gzip' || coding === '*') && !(q && Number(q.trim().slice(2)) === 0);
  });
}

/** `body` gzipped at `level` (by default Elasticsearch's `http.compression_level`); a large one comes in pieces. */
export function gzipBody(body: ReplyBody, level = COMPRESSION_LEVEL): Promise<Uint8Array | Buffer[]> {
  // A typical reply (a search page, a bulk response) is gzipped at once on a reused stream: cheaper than the
  // thread-pool round trip and the new stream of the asynchronous call. Large ones keep the event loop free,
  // and the largest (a long range query's answer) are compressed in pieces on both cores, and never joined.
  const maxBytes = typeof body === 'string' ? body.length * 3 : bodyLength(body); // UTF-8 takes ≤ 3 bytes per unit
  if (maxBytes <= SYNC_GZIP_MAX_BYTES) {
    return Promise.resolve(Buffer.from(gzipTransient(bodyBytes(body), level)));
  }
  return gzipInPieces(typeof body === 'string' ? Buffer.from(body) : body, level);
}
