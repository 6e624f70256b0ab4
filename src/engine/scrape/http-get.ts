/**
 * Outbound GET for scrapes and HTTP discovery over node:http(s). Not `fetch`: undici refuses the WHATWG
 * "bad ports" (1, 6000, 10080…) that exporters are free to use, and its errors lose the Go-style detail
 * Prometheus users expect in `lastError`. Handles gzip, one timeout for the whole exchange, up to 10
 * redirects (unless `follow_redirects: false`), an HTTP proxy (absolute-URL requests for http targets, a
 * CONNECT tunnel for https targets, as Go's transport; credentials in the proxy URL go as Basic
 * `Proxy-Authorization`, `proxy_connect_header` with the CONNECT), and a limit on the uncompressed body size.
 * Scrapes of plain http targets without a proxy read straight into their kept buffer (`plain-http-get.ts`).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import type { Socket } from 'node:net';
import { createGunzip } from 'node:zlib';
import type { BodyBuffer } from './body-buffer.ts';
import { plainHttpGet, PlainHttpError } from './plain-http-get.ts';

export interface GetResult { status: number; statusText: string; contentType: string; body: Buffer }

/** TLS material for https targets (contents, not paths). */
export interface TlsOptions {
  ca?: Buffer; cert?: Buffer; key?: Buffer; servername?: string; rejectUnauthorized: boolean;
  minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'; maxVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
}

export interface GetOptions {
  tls?: TlsOptions;
  /** Default true; false returns the 3xx reply itself. */
  followRedirects?: boolean;
  /** `http://[user:password@]host:port` of an HTTP proxy, or ''. */
  proxyUrl?: string;
  /** Extra headers of the CONNECT request (`proxy_connect_header`). */
  proxyConnectHeader?: Record<string, string[]>;
  /** Fails with "body size limit exceeded" past this many uncompressed bytes; 0 = no limit. */
  maxBodyBytes?: number;
  /** Reads the body into this buffer: the result's `body` is then a view of it, valid until its next use. */
  into?: BodyBuffer;
}

/** Prometheus's message when `body_size_limit` is exceeded. */
export const BODY_SIZE_LIMIT_ERROR = 'body size limit exceeded';

export type HttpGet = (url: string, headers: Record<string, string>, timeoutMs: number, opts?: GetOptions) => Promise<GetResult>;

/** GETs `url`; rejects with a Go-style message (`Get "url": …`). */
export const httpGet: HttpGet = (url, headers, timeoutMs, opts = {}) => {
  const deadline = Date.now() + timeoutMs;
  return getOnce(url, headers, deadline, 0, opts);
};

function getOnce(url: string, headers: Record<string, string>, deadline: number, redirects: number, opts: GetOptions): Promise<GetResult> {
  return new Promise((resolve, reject) => {
    let u: URL;
    try { u = new URL(url); } catch { reject(new Error(`Get "${url}": invalid URL`)); return; }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      reject(new Error(`Get "${url}": unsupported protocol scheme "${u.protocol.slice(0, -1)}"`));
      return;
    }
    const fail = (msg: string): void => reject(new Error(`Get "${url}": ${msg}`));
    const failWith = (e: NodeJS.ErrnoException & { address?: string; port?: number }): void => {
      if (e.code === 'ECONNREFUSED') fail(`dial tcp ${e.address}:${e.port}: connect: connection refused`);
      else if (e.code === 'ENOTFOUND') fail(`dial tcp: lookup ${u.hostname}: no such host`);
      else fail(e.message);
    };
    /** The URL to follow, or '' (then the 3xx itself is the answer, also when its Location is not a URL). */
    const redirectTo = (status: number, location: string | undefined): string => {
      if (opts.followRedirects === false || status < 301 || status > 308 || !location || redirects >= 10) return '';
      try { return new URL(location, u).toString(); } catch { return ''; }
    };
    const into = opts.into;
    if (into && u.protocol === 'http:' && !opts.proxyUrl) {
      // A scrape into a kept buffer: read straight into it (see plain-http-get.ts).
      const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
      plainHttpGet(host, Number(u.port || 80), u.pathname + u.search, u.host, headers, deadline, into, opts.maxBodyBytes ?? 0).then((r) => {
        const next = redirectTo(r.status, r.location);
        if (next !== '') { getOnce(next, headers, deadline, redirects + 1, opts).then(resolve, reject); return; }
        resolve({ status: r.status, statusText: r.statusText, contentType: r.contentType, body: into.view() });
      }, (e: Error) => {
        if (e instanceof PlainHttpError && e.code === 'LIMIT') reject(new Error(BODY_SIZE_LIMIT_ERROR));
        else failWith(e);
      });
      return;
    }
    const reqHeaders = { ...headers, 'Accept-Encoding': 'gzip' };
    let req;
    if (opts.proxyUrl && u.protocol === 'http:') {
      // A plain HTTP proxy takes the absolute URL as the request target.
      const p = new URL(opts.proxyUrl);
      req = httpRequest({ host: p.hostname, port: p.port || 80, method: 'GET', path: u.toString(), headers: { ...reqHeaders, Host: u.host, ...proxyAuth(p) } });
    } else if (opts.proxyUrl) {
      // https through the proxy: a CONNECT tunnel, then TLS with the target inside it.
      tunnelThrough(new URL(opts.proxyUrl), u, opts.proxyConnectHeader ?? {}, deadline).then((socket) => {
        const inner = httpsRequest(u, {
          method: 'GET', headers: reqHeaders, ...opts.tls, agent: false,
          createConnection: () => tlsConnect({ ...opts.tls, socket, servername: opts.tls?.servername ?? (isIp(u.hostname) ? undefined : u.hostname) }),
        });
        handle(inner);
        inner.end();
      }, (e: Error) => fail(e.message));
      return;
    } else {
      req = u.protocol === 'https:' ? httpsRequest(u, { method: 'GET', headers: reqHeaders, ...opts.tls }) : httpRequest(u, { method: 'GET', headers: reqHeaders });
    }
    handle(req);
    req.end();

    function handle(req: ReturnType<typeof httpRequest>): void {
      const timer = setTimeout(() => { req.destroy(new Error('context deadline exceeded')); }, Math.max(1, deadline - Date.now()));
      req.on('error', (e: NodeJS.ErrnoException & { address?: string; port?: number }) => {
        clearTimeout(timer);
        failWith(e);
      });
      req.on('response', (res: IncomingMessage) => {
        const next = redirectTo(res.statusCode ?? 0, res.headers.location);
        if (next !== '') {
          clearTimeout(timer);
          res.resume();
          getOnce(next, headers, deadline, redirects + 1, opts).then(resolve, reject);
          return;
        }
        const gzip = res.headers['content-encoding'] === 'gzip';
        const stream = gzip ? res.pipe(createGunzip()) : res;
        into?.start(gzip ? 0 : Number(res.headers['content-length'] ?? 0) || 0);
        const chunks: Buffer[] = [];
        let size = 0;
        const limit = opts.maxBodyBytes ?? 0;
        stream.on('data', (c: Buffer) => {
          size += c.length;
          if (limit > 0 && size > limit) {
            clearTimeout(timer);
            req.destroy();
            reject(new Error(BODY_SIZE_LIMIT_ERROR));
            return;
          }
          if (into) into.append(c); else chunks.push(c);
        });
        stream.on('error', (e) => { clearTimeout(timer); req.destroy(); fail(e.message); });
        stream.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0, statusText: res.statusMessage ?? '',
            contentType: String(res.headers['content-type'] ?? ''), body: into ? into.view() : Buffer.concat(chunks),
          });
        });
      });
    }
  });
}

/** Basic `Proxy-Authorization` from the proxy URL's user information, as Go's transport sends it. */
function proxyAuth(p: URL): Record<string, string> {
  if (p.username === '' && p.password === '') return {};
  const cred = `${decodeURIComponent(p.username)}:${decodeURIComponent(p.password)}`;
  return { 'Proxy-Authorization': `Basic ${Buffer.from(cred).toString('base64')}` };
}

/** Opens a CONNECT tunnel to `target` through `proxy`; resolves with the raw socket once the proxy answers 200. */
function tunnelThrough(proxy: URL, target: URL, connectHeader: Record<string, string[]>, deadline: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const authority = `${target.hostname}:${target.port || 443}`;
    const headers: Record<string, string | string[]> = { Host: authority, ...proxyAuth(proxy), ...connectHeader };
    const req = httpRequest({ host: proxy.hostname, port: proxy.port || 80, method: 'CONNECT', path: authority, headers });
    const timer = setTimeout(() => req.destroy(new Error('context deadline exceeded')), Math.max(1, deadline - Date.now()));
    req.on('connect', (res: IncomingMessage, socket: Socket) => {
      clearTimeout(timer);
      if (res.statusCode === 200) { resolve(socket); return; }
      socket.destroy();
      reject(new Error(`proxyconnect tcp: ${res.statusCode} ${res.statusMessage ?? ''}`.trimEnd()));
    });
    req.on('error', (e: NodeJS.ErrnoException & { address?: string; port?: number }) => {
      clearTimeout(timer);
      reject(new Error(e.code === 'ECONNREFUSED' ? `proxyconnect tcp: dial tcp ${e.address}:${e.port}: connect: connection refused` : e.message));
    });
    req.end();
  });
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}
