/**
 * Outbound GET for scrapes over node:http(s). Not `fetch`: undici refuses the WHATWG "bad ports"
 * (1, 6000, 10080…) that exporters are free to use, and its errors lose the Go-style detail Prometheus
 * users expect in `lastError`. Handles gzip, one timeout for the whole exchange and up to 10 redirects.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createGunzip } from 'node:zlib';

export interface GetResult { status: number; statusText: string; contentType: string; body: string }

/** TLS material for https targets (contents, not paths). */
export interface TlsOptions { ca?: Buffer; cert?: Buffer; key?: Buffer; servername?: string; rejectUnauthorized: boolean }

export type HttpGet = (url: string, headers: Record<string, string>, timeoutMs: number, tls?: TlsOptions) => Promise<GetResult>;

/** GETs `url`; rejects with a Go-style message (`Get "url": …`). */
export const httpGet: HttpGet = (url, headers, timeoutMs, tls) => {
  const deadline = Date.now() + timeoutMs;
  return getOnce(url, headers, deadline, 0, tls);
};

function getOnce(url: string, headers: Record<string, string>, deadline: number, redirects: number, tls?: TlsOptions): Promise<GetResult> {
  return new Promise((resolve, reject) => {
    let u: URL;
    try { u = new URL(url); } catch { reject(new Error(`Get "${url}": invalid URL`)); return; }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      reject(new Error(`Get "${url}": unsupported protocol scheme "${u.protocol.slice(0, -1)}"`));
      return;
    }
    const fail = (msg: string): void => reject(new Error(`Get "${url}": ${msg}`));
    const opts = { method: 'GET', headers: { ...headers, 'Accept-Encoding': 'gzip' } };
    const req = u.protocol === 'https:' ? httpsRequest(u, { ...opts, ...tls }) : httpRequest(u, opts);
    const timer = setTimeout(() => { req.destroy(new Error('context deadline exceeded')); }, Math.max(1, deadline - Date.now()));
    req.on('error', (e: NodeJS.ErrnoException & { address?: string; port?: number }) => {
      clearTimeout(timer);
      if (e.code === 'ECONNREFUSED') fail(`dial tcp ${e.address}:${e.port}: connect: connection refused`);
      else if (e.code === 'ENOTFOUND') fail(`dial tcp: lookup ${u.hostname}: no such host`);
      else fail(e.message);
    });
    req.on('response', (res: IncomingMessage) => {
      const loc = res.headers.location;
      if (res.statusCode && res.statusCode >= 301 && res.statusCode <= 308 && loc && redirects < 10) {
        clearTimeout(timer);
        res.resume();
        getOnce(new URL(loc, u).toString(), headers, deadline, redirects + 1, tls).then(resolve, reject);
        return;
      }
      const stream = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res;
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', (e) => { clearTimeout(timer); req.destroy(); fail(e.message); });
      stream.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0, statusText: res.statusMessage ?? '',
          contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    req.end();
  });
}
