/**
 * A GET over plain TCP that reads the response body straight into a target's kept buffer, for scrapes of
 * `http:` targets without a proxy (the common case; TLS and proxies go through node:http in `http-get.ts`).
 * node:http hands the body over as a fresh 64 KB buffer per socket read, each sliced and pushed through a
 * stream before it is copied into the kept buffer: for a 100,000-series target that is ~8 MB of short-lived
 * ArrayBuffers per scrape, which the idle collector counts towards its next full collection. Here the socket
 * reads into one reused buffer (`onread`), and the bytes are copied once, into the body buffer.
 *
 * HTTP/1.1 as a scrape needs it: one request per connection (`Connection: close`), the body framed by
 * Content-Length, chunked transfer encoding or the end of the connection, gzip content encoding, interim 1xx
 * responses skipped. The caller handles redirects, timeouts' messages and the body size limit's.
 */
import { connect, type Socket } from 'node:net';
import { createGunzip, type Gunzip } from 'node:zlib';
import type { BodyBuffer } from './body-buffer.ts';

export interface PlainResponse { status: number; statusText: string; contentType: string; location: string }

/** Reads of every socket go through this buffer and are copied out before the callback returns. */
const READ_BUFFER = Buffer.allocUnsafeSlow(64 * 1024);

const HEAD_LIMIT = 64 * 1024;
/** Request headers this client sets itself. */
const OWN_HEADERS = new Set(['host', 'accept-encoding', 'connection']);

/** Framing states of the body. */
const HEAD = 0, FIXED = 1, TO_CLOSE = 2, CHUNK_SIZE = 3, CHUNK_DATA = 4, CHUNK_DATA_END = 5, TRAILERS = 6, DONE = 7;

export class PlainHttpError extends Error {
  constructor(message: string, readonly code = '') { super(message); }
}

/**
 * GETs `path` from `host:port`, the body into `into`. Resolves once the body is complete; rejects with a
 * PlainHttpError (`code` 'LIMIT' past `maxBodyBytes` uncompressed bytes, 'TIMEOUT' at `deadline`), or the
 * socket's error. `headers` are written as given, after `Host`.
 */
export function plainHttpGet(host: string, port: number, path: string, hostHeader: string, headers: Record<string, string>,
  deadline: number, into: BodyBuffer, maxBodyBytes: number): Promise<PlainResponse> {
  let request = `GET ${path} HTTP/1.1\r\nHost: ${hostHeader}\r\n`;
  for (const name in headers) {
    const value = headers[name];
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) return Promise.reject(new PlainHttpError(`invalid header field ${JSON.stringify(name)}`));
    if (OWN_HEADERS.has(name.toLowerCase())) continue;
    request += `${name}: ${value}\r\n`;
  }
  request += 'Accept-Encoding: gzip\r\nConnection: close\r\n\r\n';
  const reader = new ResponseReader(into, maxBodyBytes);
  const socket: Socket = connect({
    host, port,
    onread: { buffer: READ_BUFFER, callback: (n: number, b: Uint8Array) => { reader.consume(b, n); return true; } },
  });
  const timer = setTimeout(() => reader.abort(new PlainHttpError('context deadline exceeded', 'TIMEOUT')), Math.max(1, deadline - Date.now()));
  socket.on('connect', () => socket.write(request));
  socket.on('error', (e) => reader.abort(e));
  socket.on('end', () => reader.end());
  const close = (): void => { clearTimeout(timer); socket.destroy(); };
  reader.read.then(close, close);
  return reader.done;
}

/**
 * Reads one HTTP/1.1 response from the bytes given to `consume`, its body into `into`. `read` settles once the
 * response has been read off the connection (or failed), `done` once its body is complete in `into` (a gzip
 * body is still inflating after `read`).
 */
export class ResponseReader {
  readonly done: Promise<PlainResponse>;
  readonly read: Promise<void>;
  private resolveDone!: (r: PlainResponse) => void;
  private rejectDone!: (e: Error) => void;
  private resolveRead!: () => void;
  private state = HEAD;
  private head = '';
  private res: PlainResponse = { status: 0, statusText: '', contentType: '', location: '' };
  /** FIXED: body bytes left; CHUNK_DATA: bytes left of the chunk. */
  private remaining = 0;
  private chunkLine = '';
  private size = 0;
  private gunzip: Gunzip | null = null;
  /** `done` is settled. */
  private over = false;
  /** `read` is settled. */
  private wasRead = false;

  constructor(private readonly into: BodyBuffer, private readonly maxBodyBytes: number) {
    this.done = new Promise((resolve, reject) => { this.resolveDone = resolve; this.rejectDone = reject; });
    this.read = new Promise((resolve) => { this.resolveRead = resolve; });
  }

  /** Fails the response (a socket error, the deadline). */
  abort(err: Error): void {
    if (this.over) return;
    this.over = true;
    this.gunzip?.destroy();
    this.finishRead();
    this.rejectDone(err);
  }

  /** The connection ended: completes a body framed by it, fails any other unfinished one. */
  end(): void {
    if (this.wasRead) return;
    if (this.state === TO_CLOSE) { this.complete(); return; }
    this.abort(new PlainHttpError(this.state === HEAD && this.head === '' ? 'EOF' : 'unexpected EOF'));
  }

  /** Consumes `b[0, n)`, the next bytes read (copied out before it returns). */
  consume(b: Uint8Array, n: number): void {
    let p = 0;
    const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    while (p < n && !this.over && !this.wasRead) {
      switch (this.state) {
        case HEAD: {
          // The head is short and ASCII: kept as text until its blank line.
          const start = this.head.length;
          this.head += buf.toString('latin1', p, n);
          const end = this.head.indexOf('\r\n\r\n', Math.max(0, start - 3));
          if (end < 0) {
            if (this.head.length > HEAD_LIMIT) this.abort(new PlainHttpError('malformed HTTP response: header too long'));
            p = n;
            break;
          }
          p += end + 4 - start;
          this.onHead(this.head.slice(0, end));
          break;
        }
        case FIXED:
        case CHUNK_DATA: {
          const take = Math.min(this.remaining, n - p);
          this.body(buf, p, p + take);
          p += take;
          this.remaining -= take;
          if (this.remaining === 0) this.state = this.state === FIXED ? DONE : CHUNK_DATA_END;
          break;
        }
        case TO_CLOSE:
          this.body(buf, p, n);
          p = n;
          break;
        case CHUNK_SIZE:
        case CHUNK_DATA_END:
        case TRAILERS: {
          // Lines of the chunked framing: a chunk's size (hex, optional extensions), the CRLF after its data,
          // trailer fields up to a blank line.
          const nl = buf.indexOf(10, p);
          const end = nl < 0 || nl >= n ? n : nl;
          this.chunkLine += buf.toString('latin1', p, end);
          if (this.chunkLine.length > 4096) { this.abort(new PlainHttpError('malformed chunked encoding')); return; }
          p = end;
          if (end === n) break;
          p++;
          const line = this.chunkLine.endsWith('\r') ? this.chunkLine.slice(0, -1) : this.chunkLine;
          this.chunkLine = '';
          this.chunkFraming(line);
          break;
        }
        default:
          p = n; // bytes after the response: ignored, the connection is closed
      }
    }
    if (this.state === DONE) this.complete();
  }

  private chunkFraming(line: string): void {
    if (this.state === CHUNK_DATA_END) {
      if (line !== '') { this.abort(new PlainHttpError('malformed chunked encoding')); return; }
      this.state = CHUNK_SIZE;
    } else if (this.state === TRAILERS) {
      if (line === '') this.state = DONE;
    } else {
      const hex = line.split(';')[0].trim();
      if (!/^[0-9a-fA-F]{1,8}$/.test(hex)) { this.abort(new PlainHttpError('malformed chunked encoding')); return; }
      this.remaining = parseInt(hex, 16);
      this.state = this.remaining === 0 ? TRAILERS : CHUNK_DATA;
    }
  }

  private onHead(head: string): void {
    this.head = '';
    const lines = head.split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(lines[0]);
    if (!m) { this.abort(new PlainHttpError(`malformed HTTP response ${JSON.stringify(lines[0].slice(0, 40))}`)); return; }
    const status = Number(m[1]);
    if (status >= 100 && status < 200) return; // an interim response: the real one follows
    let length = -1, chunked = false, gzip = false, contentType = '', location = '';
    for (let i = 1; i < lines.length; i++) {
      const c = lines[i].indexOf(':');
      if (c <= 0) continue;
      const name = lines[i].slice(0, c).trim().toLowerCase(), value = lines[i].slice(c + 1).trim();
      if (name === 'content-length') length = /^\d{1,15}$/.test(value) ? Number(value) : -2;
      else if (name === 'transfer-encoding') chunked = value.toLowerCase().split(',').some((t) => t.trim() === 'chunked');
      else if (name === 'content-encoding') gzip = value.toLowerCase() === 'gzip';
      else if (name === 'content-type') contentType = value;
      else if (name === 'location') location = value;
    }
    if (!chunked && length === -2) { this.abort(new PlainHttpError('malformed HTTP response: bad Content-Length')); return; }
    this.res = { status, statusText: m[2] ?? '', contentType, location };
    this.into.start(gzip || chunked || length < 0 ? 0 : length);
    if (gzip) {
      const g = this.gunzip = createGunzip();
      g.on('data', (c: Buffer) => this.append(c, 0, c.length));
      g.on('error', (e) => this.abort(e));
    }
    if (status === 204 || status === 304) this.state = DONE;
    else if (chunked) this.state = CHUNK_SIZE;
    else if (length >= 0) { this.state = length === 0 ? DONE : FIXED; this.remaining = length; }
    else this.state = TO_CLOSE;
  }

  private body(b: Buffer, from: number, to: number): void {
    if (to <= from) return;
    // zlib keeps the chunk until it has inflated it, and the read buffer is reused: a copy (compressed bytes).
    if (this.gunzip) this.gunzip.write(Buffer.from(b.subarray(from, to)));
    else this.append(b, from, to);
  }

  private append(b: Uint8Array, from: number, to: number): void {
    if (this.over) return;
    this.size += to - from;
    if (this.maxBodyBytes > 0 && this.size > this.maxBodyBytes) { this.abort(new PlainHttpError('body size limit exceeded', 'LIMIT')); return; }
    this.into.append(b.subarray(from, to));
  }

  private complete(): void {
    if (this.over || this.wasRead) return;
    this.state = DONE;
    this.finishRead();
    const g = this.gunzip;
    if (!g) { this.succeed(); return; }
    g.once('end', () => this.succeed());
    g.end();
  }

  private finishRead(): void {
    if (this.wasRead) return;
    this.wasRead = true;
    this.resolveRead();
  }

  private succeed(): void {
    if (this.over) return;
    this.over = true;
    this.resolveDone(this.res);
  }
}
