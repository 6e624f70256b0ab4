/**
 * A reply's body: text, bytes, or bytes in pieces that are sent in order without being joined (a long range
 * query's answer is the envelope around slices of the query threads' JSON; joining 42 MB of them cost the HTTP
 * thread ~180 ms of fresh pages, docs/benchmarks.md, issue 12).
 */
export type ReplyBody = string | Uint8Array | readonly Uint8Array[];

/** The body's length in bytes. */
export function bodyLength(body: ReplyBody): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  let n = 0;
  for (const p of body) n += p.byteLength;
  return n;
}

/** The body as one buffer: pieces joined (for small replies, which are cheaper sent or gzipped whole). */
export function bodyBytes(body: ReplyBody): Buffer {
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return Buffer.concat(body as Uint8Array[]);
}
