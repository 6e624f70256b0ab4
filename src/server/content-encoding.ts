/**
 * Compressed request bodies (`Content-Encoding: gzip` or `deflate`), as Elasticsearch has accepted since 5.0 and
 * the JS client's `compression`, Python's `http_compress`, Logstash and Beats send. The body limit applies to
 * the inflated bytes, so a small compressed body that inflates past it is refused like a large plain one.
 * Other encodings (Prometheus remote write's `snappy`) are left to the route that speaks them.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const gunzip = promisify(zlib.gunzip);
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
