/**
 * The only module that imports uWebSockets.js. It turns uWS's callback API into plain request/response
 * objects: the body is read fully (with a size limit) before the handler runs, an aborted upload is
 * dropped without touching the response again, and replies are written corked.
 */
import uWS from 'uWebSockets.js';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTlsFront, type TlsFront, type TlsFrontSettings } from './tls-front.ts';
import { gzipBody, inflateBody, isInflatable, wantsGzip } from './content-encoding.ts';
import { bodyBytes, bodyLength, type ReplyBody } from './reply-body.ts';

export interface HttpRequest {
  /** Upper-case method as sent. */
  readonly method: string;
  /** Path without the query string, percent-decoding not applied. */
  readonly path: string;
  readonly rawQuery: string;
  readonly query: URLSearchParams;
  /** Header names lower-case; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** Aborted when the client goes away before the reply is written (created on first read). */
  readonly signal: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers?: Record<string, string>;
  /**
   * A list is one body in pieces, sent in order without being joined (a long range query's answer: the
   * envelope around the query threads' JSON); the pieces must stay unchanged until the reply is written.
   */
  body?: ReplyBody;
}

export type Handler = (req: HttpRequest) => HttpResponse | Promise<HttpResponse>;

/** What is known of a request before its body is read. */
export interface RequestHead {
  readonly method: string;
  readonly path: string;
  readonly rawQuery: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Whether a request may go on (`refusal` null) and the headers to add to whatever reply it gets. */
export interface Admission {
  refusal: HttpResponse | null;
  /** Set on the reply unless the reply sets the same header itself. */
  headers: Readonly<Record<string, string>> | null;
}

/** A TLS listener (uWS SSLApp); file names, read by uWS at start-up. See web-tls.ts for what maps to what. */
export interface ListenerTlsOptions {
  keyFile: string;
  certFile: string;
  /** Ask for a client certificate and verify it against this CA when one is sent; '' = do not ask. */
  caFile: string;
  /** OpenSSL cipher list for TLS <= 1.2; '' = the library default. */
  ciphers: string;
  /**
   * Settings uWS cannot express: TLS is then terminated by node:tls in front of uWS (tls-front.ts), and the
   * fields above are unused. null: uWS's SSLApp serves TLS itself.
   */
  front: TlsFrontSettings | null;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  /** The API's own envelope for an over-limit body (413). */
  tooLarge(req: { method: string; path: string }, limitBytes: number): HttpResponse;
  /**
   * Request bodies held in memory by every listener of the node together (body read until reply sent);
   * a body that would take the total past the limit is refused with `overloaded`.
   */
  inFlightBudget?: InFlightBudget;
  /** The API's envelope for a body refused for the in-flight budget (ES 429, Prometheus 503, workflow 429). */
  overloaded?(req: { method: string; path: string }, wantedBytes: number, usedBytes: number, limitBytes: number): HttpResponse;
  /** The API's envelope for a body that cannot be read (a corrupt compressed body; 400). */
  badBody(reason: string): HttpResponse;
  /** Gzip replies for clients that send `Accept-Encoding: gzip` (Elasticsearch's `http.compression`). */
  compressResponses?: boolean;
  /** The API's envelope for a handler that threw something unexpected (500). */
  internalError(err: unknown): HttpResponse;
  handler: Handler;
  /** Serve HTTPS instead of HTTP. */
  tls?: ListenerTlsOptions;
  /**
   * Runs on each request's head before its body is read (basic auth of a web config file). A refused
   * request's body is drained and dropped, as an over-limit one is.
   */
  admit?(req: RequestHead): Admission | Promise<Admission>;
}

/** Shared by the listeners of one node (Elasticsearch's `in_flight_requests` breaker). */
export interface InFlightBudget { limitBytes: number; usedBytes: number }

export interface HttpServer {
  readonly port: number;
  /** Stops accepting connections and resolves once in-flight requests have been answered. */
  close(): Promise<void>;
  inFlight(): number;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 301: 'Moved Permanently', 302: 'Found',
  304: 'Not Modified', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 406: 'Not Acceptable', 408: 'Request Timeout', 409: 'Conflict', 410: 'Gone',
  411: 'Length Required', 412: 'Precondition Failed', 413: 'Payload Too Large', 415: 'Unsupported Media Type',
  422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error', 501: 'Not Implemented',
  502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

/** uWS's `LIBUS_LISTEN_EXCLUSIVE_PORT` (its `ListenOptions` enum is a type only, with no runtime value). */
const LISTEN_EXCLUSIVE_PORT = 1;

/**
 * uWS reports a failed listen without a reason; binding the same address with Node's own sockets recovers it
 * (typically `address already in use`) so start-up fails with the message Prometheus would print.
 */
function bindFailure(host: string, port: number): Promise<Error> {
  return new Promise((resolve) => {
    const probe = createServer();
    const done = (reason: string): void => { probe.close(); resolve(new Error(`cannot listen on ${host}:${port}: listen tcp ${host}:${port}: bind: ${reason}`)); };
    probe.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'EADDRINUSE' ? 'address already in use' : err.message));
    probe.listen({ host, port, exclusive: true }, () => done('refused by the HTTP library'));
  });
}

/** Whether `headers` sets `name` (any case). */
function hasHeader(headers: Record<string, string> | undefined, name: string): boolean {
  if (headers === undefined) return false;
  const lower = name.toLowerCase();
  for (const k in headers) if (k.toLowerCase() === lower) return true;
  return false;
}

export function statusLine(status: number): string {
  return `${status} ${STATUS_TEXT[status] ?? 'Unknown'}`;
}

const EMPTY = Buffer.alloc(0);

/**
 * A body in pieces smaller than this is joined and sent with one `end`: the copy is cheap, and one write beats
 * the piece-by-piece loop. Larger ones are written piece by piece, as the socket takes them — joining 42 MB
 * cost ~180 ms of the HTTP thread in fresh pages (docs/benchmarks.md, issue 12).
 */
const PIECES_JOIN_MAX_BYTES = 256 * 1024;

/**
 * The request handed to handlers. A class, not an object literal with getters: a literal with accessors was
 * built through the runtime with an accessor pair and two closures each time, ~2 µs per request on the HTTP
 * thread (docs/benchmarks.md, issue 15); here the getters live on the prototype.
 */
class UwsRequest implements HttpRequest {
  private parsedQuery: URLSearchParams | null = null;
  private aborter: AbortController | null = null;
  /** The reply is written or the client went away: a signal asked for from now on is born aborted. */
  finished = false;

  constructor(readonly method: string, readonly path: string, readonly rawQuery: string,
    readonly headers: Readonly<Record<string, string>>, readonly body: Buffer) {}

  // The query is parsed on first read: most requests under load (workflow events, bulk) never look at it.
  get query(): URLSearchParams { return this.parsedQuery ??= new URLSearchParams(this.rawQuery); }

  // Most handlers never look at the signal; the controller is made only for those that do.
  get signal(): AbortSignal {
    this.aborter ??= new AbortController();
    if (this.finished && !this.aborter.signal.aborted) this.aborter.abort();
    return this.aborter.signal;
  }

  /** The client went away before the reply was written. */
  clientGone(): void { this.finished = true; this.aborter?.abort(); }
}
/**
 * An over-limit body is read (and dropped) to its end before the 413 goes out: uWS resets a connection whose
 * reply ends before its body has arrived, and the reset makes the client's kernel discard the reply (nginx's
 * lingering close solves the same problem). Reading costs no memory. The reply goes out once the body has
 * ended, once the client has sent nothing for `DRAIN_IDLE_MS` (it is waiting for an answer), or after
 * `DRAIN_TIME_MS` in all (then the connection is closed).
 */
const DRAIN_IDLE_MS = 250;
const DRAIN_TIME_MS = 10_000;

function sslApp(tls: ListenerTlsOptions): uWS.TemplatedApp {
  const options: uWS.AppOptions = { key_file_name: tls.keyFile, cert_file_name: tls.certFile };
  if (tls.caFile) options.ca_file_name = tls.caFile;
  if (tls.ciphers) options.ssl_ciphers = tls.ciphers;
  return uWS.SSLApp(options);
}

/** What the requests of one listener share. */
interface ListenerState {
  readonly opts: HttpServerOptions;
  readonly budget: InFlightBudget | undefined;
  /** The listener is closing: replies close their connections. */
  closing: boolean;
  /** A request was answered, or its client went away. */
  finish(): void;
}

/**
 * One request and its reply: its state and steps are the fields and methods of one object, where they were
 * some fifteen closures over one context per request — the HTTP thread's largest allocation under load
 * (docs/benchmarks.md, issue 15). The callbacks uWS takes stay closures.
 */
class Exchange {
  /** Turns true once, when the reply is written or the client went away; in-flight is counted down then. */
  private done = false;
  /** Body bytes this request holds against the node's in-flight budget; given back with the reply. */
  private heldBytes = 0;
  /** Made once the body is read (a client gone before that has no handler to tell). */
  private request: UwsRequest | null = null;
  /**
   * The admission check's verdict (web config basic auth): its reply headers, and for a refused request the
   * reply. `verdict` is 'pending' while bcrypt runs; a body complete before then is parked in `parked`.
   */
  private extraHeaders: Readonly<Record<string, string>> | null = null;
  private verdict: 'pending' | 'admitted' | HttpResponse = 'admitted';
  private parked: Buffer | null = null;
  /** An over-limit body is read to its end and dropped before the 413 goes out (see DRAIN_TIME_MS). */
  private readonly declared: number;
  private chunks: Buffer[] = [];
  /** The body of a request with a declared length, filled chunk by chunk. */
  private whole: Buffer | null = null;
  private size = 0;
  private drainTimer: NodeJS.Timeout | null = null;
  private drainEndMs = 0;
  /** The reply of a refused body (over the limit, or over the node's in-flight budget), sent once drained. */
  private refusal: (() => HttpResponse) | null = null;
  /** A reply body being written in pieces (see writePieces); null when there is none or once it is written. */
  private pieces: readonly Uint8Array[] | null = null;
  private piecesTotal = 0;
  /** The piece being written, and the body offset where it starts. */
  private piece = 0;
  private pieceStart = 0;

  constructor(private readonly l: ListenerState, private readonly res: uWS.HttpResponse, private readonly method: string,
    private readonly path: string, private readonly rawQuery: string, private readonly headers: Record<string, string>) {
    this.declared = Number(headers['content-length'] ?? 0);
  }

  /** Runs inside uWS's request callback: the body's reader must be registered before it returns. */
  begin(): void {
    const { opts } = this.l;
    const { method, path, rawQuery, headers, declared } = this;
    if (opts.admit) {
      let a: Admission | Promise<Admission>;
      try { a = opts.admit({ method, path, rawQuery, headers }); } catch (err) { this.send(opts.internalError(err)); return; }
      if (!(a instanceof Promise)) this.decide(a);
      else {
        this.verdict = 'pending';
        a.then((x) => {
          this.decide(x);
          const parked = this.parked;
          if (parked === null) { if (x.refusal !== null) this.startRefusal(() => x.refusal!); return; }
          if (x.refusal === null) this.run(parked); else this.send(x.refusal);
        }, (err) => this.send(opts.internalError(err)));
      }
    }
    const verdict = this.verdict;
    if (typeof verdict === 'object' && !declared && !headers['transfer-encoding']) { this.send(verdict); return; }
    if (!declared && !headers['transfer-encoding']) { this.run(EMPTY); return; }
    if (typeof verdict === 'object') this.startRefusal(() => verdict);
    else if (declared > opts.maxBodyBytes) this.startRefusal(() => this.tooLarge());
    else if (declared > 0 && !this.hold(declared)) this.startRefusal(this.overloaded(declared));
    this.res.onData((chunk, isLast) => this.data(chunk, isLast));
  }

  private decide(x: Admission): void { this.extraHeaders = x.headers; this.verdict = x.refusal ?? 'admitted'; }

  aborted(): void {
    this.request?.clientGone();
    if (!this.done) { this.done = true; this.releaseBudget(); this.l.finish(); }
    else if (this.pieces !== null) this.piecesFinished();
  }

  private releaseBudget(): void {
    if (this.l.budget !== undefined) this.l.budget.usedBytes -= this.heldBytes;
    this.heldBytes = 0;
  }

  /** Holds `n` more body bytes against the node's budget; false (nothing held) when they do not fit. */
  private hold(n: number): boolean {
    const budget = this.l.budget;
    if (budget === undefined) return true;
    if (budget.usedBytes + n > budget.limitBytes) return false;
    budget.usedBytes += n;
    this.heldBytes += n;
    return true;
  }

  private send(r: HttpResponse, closeConnection = this.l.closing): void {
    if (this.done) return;
    this.done = true;
    if (this.request !== null) this.request.finished = true;
    const { res, method } = this;
    const extraHeaders = this.extraHeaders;
    let body = r.body ?? EMPTY;
    let inPieces = false;
    if (Array.isArray(body) && method !== 'HEAD') {
      const total = bodyLength(body);
      // A closing listener's replies end with the connection, which only `end` can say.
      inPieces = total >= PIECES_JOIN_MAX_BYTES && !closeConnection;
      if (inPieces) { this.pieces = body; this.piecesTotal = total; }
      else body = bodyBytes(body);
    }
    res.cork(() => {
      res.writeStatus(statusLine(r.status));
      if (extraHeaders !== null) for (const k in extraHeaders) if (!hasHeader(r.headers, k)) res.writeHeader(k, extraHeaders[k]);
      if (r.headers) for (const k in r.headers) res.writeHeader(k, r.headers[k]);
      if (inPieces) {
        res.onWritable(() => this.writePiecesCorked());
        this.writePieces();
      } else if (method !== 'HEAD') res.end(body as string | Uint8Array, closeConnection);
      else if (closeConnection) res.end(EMPTY, true);
      else {
        // This uWS build aborts or drops the keep-alive connection when endWithoutBody is given a length or
        // a close flag; the header written by hand plus the bare call keeps the connection usable.
        res.writeHeader('content-length', String(bodyLength(body)));
        res.endWithoutBody();
      }
    });
    this.releaseBudget();
    // A body in pieces counts as in flight until written (maybe already, above) or abandoned by its client.
    if (!inPieces) this.l.finish();
  }

  /**
   * Writes the body's pieces from where the socket stopped taking them, until it stops again (the rest waits
   * for onWritable) or the body is complete. uWS's `tryEnd` writes what the socket takes now and no more, and
   * counts the body bytes written (`getWriteOffset`), which tells how much of the current piece went out.
   */
  private writePieces(): boolean {
    const pieces = this.pieces;
    if (pieces === null) return true;
    const res = this.res;
    while (this.piece < pieces.length) {
      const p = pieces[this.piece];
      const sent = res.getWriteOffset() - this.pieceStart;
      if (sent < p.byteLength) {
        const [ok, responded] = res.tryEnd(sent === 0 ? p : p.subarray(sent), this.piecesTotal);
        if (responded) { this.piecesFinished(); return true; }
        if (!ok) return false;
      }
      this.pieceStart += p.byteLength;
      this.piece++;
    }
    return true;
  }

  /** onWritable's writes, corked: the small pieces between large ones share a syscall. */
  private writePiecesCorked(): boolean {
    let written = true;
    this.res.cork(() => { written = this.writePieces(); });
    return written;
  }

  /** The body in pieces is written, or its client went away: the pieces are let go. */
  private piecesFinished(): void {
    this.pieces = null;
    this.l.finish();
  }

  /** A handler's reply, gzipped when the listener compresses, the client accepts gzip and the body is worth it. */
  private reply(r: HttpResponse): void {
    if (!this.l.opts.compressResponses || this.method === 'HEAD' || !wantsGzip(r, this.headers['accept-encoding'])) { this.send(r); return; }
    gzipBody(r.body!).then((gz) => this.send({ ...r, body: gz, headers: { ...r.headers, 'content-encoding': 'gzip', vary: 'accept-encoding' } }),
      () => this.send(r));
  }

  private run(body: Buffer): void {
    if (this.verdict === 'pending') { this.parked = body; return; }
    const { opts } = this.l;
    const encoding = this.headers['content-encoding'];
    if (isInflatable(encoding) && body.byteLength > 0) {
      // Handlers see the inflated body and no encoding header, as if it had been sent plain.
      inflateBody(encoding, body, opts.maxBodyBytes).then((r) => {
        if (r.kind === 'too-large') this.send(this.tooLarge());
        else if (r.kind === 'bad') this.send(opts.badBody(r.reason));
        else { delete this.headers['content-encoding']; this.handle(r.body); }
      }, (err) => this.send(opts.internalError(err)));
      return;
    }
    this.handle(body);
  }

  private handle(body: Buffer): void {
    const { opts } = this.l;
    const request = this.request = new UwsRequest(this.method, this.path, this.rawQuery, this.headers, body);
    // Handled after the client left (the onAborted callback already ran): a signal is born aborted.
    if (this.done) request.finished = true;
    let out: HttpResponse | Promise<HttpResponse>;
    try { out = opts.handler(request); } catch (err) { this.send(opts.internalError(err)); return; }
    if (out instanceof Promise) out.then((r) => this.reply(r), (err) => this.send(opts.internalError(err)));
    else this.reply(out);
  }

  private tooLarge(): HttpResponse { return this.l.opts.tooLarge({ method: this.method, path: this.path }, this.l.opts.maxBodyBytes); }

  private overloaded(wanted: number): () => HttpResponse {
    const { opts, budget } = this.l;
    const used = budget!.usedBytes;
    return () => opts.overloaded?.({ method: this.method, path: this.path }, wanted, used, budget!.limitBytes) ?? { status: 503, body: 'request bodies in flight over the limit\n' };
  }

  private refuse(): void {
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.send(this.refusal!(), true);
  }

  /** (Re)arms the reply of a draining request: idle time since the last chunk, within the overall cap. */
  private drain(): void {
    const now = Date.now();
    if (this.drainEndMs === 0) this.drainEndMs = now + DRAIN_TIME_MS;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.drainTimer = setTimeout(() => this.refuse(), Math.max(0, Math.min(DRAIN_IDLE_MS, this.drainEndMs - now)));
  }

  private startRefusal(make: () => HttpResponse): void {
    this.refusal = make;
    this.chunks = [];
    this.whole = null;
    this.releaseBudget();
    this.drain();
  }

  private data(chunk: ArrayBuffer, isLast: boolean): void {
    if (this.done) return;
    const { opts } = this.l;
    const declared = this.declared;
    this.size += chunk.byteLength;
    const size = this.size;
    if (this.refusal === null && size > opts.maxBodyBytes) this.startRefusal(() => this.tooLarge());
    // A body without a declared length is held chunk by chunk.
    if (this.refusal === null && !declared && !this.hold(chunk.byteLength)) this.startRefusal(this.overloaded(size));
    if (this.refusal !== null) {
      if (isLast) this.refuse(); else this.drain();
      return;
    }
    // uWS reuses the chunk's memory after this callback returns: copy it, once. A declared length gets one
    // buffer of that size at the first chunk, and each chunk goes straight to its place (a multi-megabyte
    // bulk body was copied into a buffer per chunk, then all of them into another: twice its size in fresh
    // memory, which is dear here — a first-touched page costs ~15 µs on this project's virtual machines).
    // Without one (chunked), the chunks are kept, each in Node's buffer pool when small, and joined at the end.
    if (declared) {
      if (chunk.byteLength) {
        this.whole ??= Buffer.allocUnsafe(declared);
        // A sender may stop short of its declared length, never go past it: uWS frames the body by it.
        this.whole.set(new Uint8Array(chunk), size - chunk.byteLength);
      }
      if (isLast) this.run(this.whole === null ? EMPTY : size === declared ? this.whole : this.whole.subarray(0, size));
      return;
    }
    if (chunk.byteLength) { const copy = Buffer.allocUnsafe(chunk.byteLength); copy.set(new Uint8Array(chunk)); this.chunks.push(copy); }
    if (isLast) this.run(this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, size));
  }
}

/** Starts one uWS app on host:port. Rejects if the port cannot be bound. */
export function startHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  const front = opts.tls?.front ?? null;
  const app = opts.tls && !front ? sslApp(opts.tls) : uWS.App();
  let inFlight = 0;
  let drained: (() => void) | null = null;
  let listenSocket: uWS.us_listen_socket | null = null;
  const state: ListenerState = {
    opts, budget: opts.inFlightBudget, closing: false,
    finish: () => {
      inFlight--;
      if (state.closing && inFlight === 0 && drained) drained();
    },
  };
  app.any('/*', (res, req) => {
    const headers: Record<string, string> = {};
    req.forEach((k, v) => { headers[k] = k in headers ? `${headers[k]}, ${v}` : v; });
    const x = new Exchange(state, res, req.getCaseSensitiveMethod().toUpperCase(), req.getUrl(), req.getQuery() ?? '', headers);
    inFlight++;
    res.onAborted(() => x.aborted());
    x.begin();
  });

  if (front) {
    return listenBehindFront(app, opts.host, opts.port, front, {
      inFlight: () => inFlight,
      beginClose: () => { state.closing = true; },
      whenDrained: (f) => { if (inFlight === 0) f(); else drained = f; },
    });
  }
  return new Promise((resolve, reject) => {
    // Exclusive: uWS's default sets SO_REUSEPORT, so a second node (another data directory) could bind the same
    // port and silently take half the connections. The 4-argument form exists in the binding, not in its typings.
    const listen = app.listen as unknown as (host: string, port: number, options: number, cb: (sock: uWS.us_listen_socket | false) => void) => void;
    listen.call(app, opts.host, opts.port, LISTEN_EXCLUSIVE_PORT, (sock) => {
      if (!sock) { bindFailure(opts.host, opts.port).then(reject); return; }
      listenSocket = sock;
      resolve({
        port: uWS.us_socket_local_port(sock),
        inFlight: () => inFlight,
        close: () => new Promise<void>((done) => {
          state.closing = true;
          if (listenSocket) { uWS.us_listen_socket_close(listenSocket); listenSocket = null; }
          // Give the last replies a moment to leave before idle keep-alive connections are cut.
          const end = (): void => { setTimeout(() => { (app as unknown as { close(): void }).close(); done(); }, 50); };
          if (inFlight === 0) end(); else drained = end;
        }),
      });
    });
  });
}

/** The request bookkeeping of startHttpServer, for a listener that closes behind a front. */
interface ServerState { inFlight(): number; beginClose(): void; whenDrained(f: () => void): void }

/**
 * uWS on a unix socket in a private (0700) directory, node:tls on host:port forwarding to it. Closing stops
 * the front first, answers what is in flight, then closes uWS (which ends the forwarded connections).
 */
function listenBehindFront(app: uWS.TemplatedApp, host: string, port: number, settings: TlsFrontSettings, state: ServerState): Promise<HttpServer> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-tls-'));
  const path = join(dir, 'http.sock');
  return new Promise((resolve, reject) => {
    app.listen_unix((sock) => {
      if (!sock) { rmSync(dir, { recursive: true, force: true }); reject(new Error(`cannot listen on unix socket ${path}`)); return; }
      startTlsFront(host, port, settings, path).then((tls: TlsFront) => {
        resolve({
          port: tls.port,
          inFlight: state.inFlight,
          close: () => new Promise<void>((done) => {
            state.beginClose();
            tls.close();
            uWS.us_listen_socket_close(sock);
            // As for a direct listener: the last replies get a moment to leave before connections are cut.
            state.whenDrained(() => setTimeout(() => {
              (app as unknown as { close(): void }).close();
              tls.destroy();
              rmSync(dir, { recursive: true, force: true });
              done();
            }, 50));
          }),
        });
      }, (err: Error) => {
        uWS.us_listen_socket_close(sock);
        rmSync(dir, { recursive: true, force: true });
        reject(err);
      });
    }, path);
  });
}
