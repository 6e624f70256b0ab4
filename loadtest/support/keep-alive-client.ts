/**
 * Requests over node's http module with a keep-alive agent, for latency figures: the way the official
 * Elasticsearch JS client 6.x sends its requests. fetch (undici) spent 0.25–0.55 ms of each request's p50 on
 * its own side, and up to 20 ms of its p99, against a server answering a fixed 4 KB body on this machine
 * (docs/benchmarks.md, issue 10): a large share of a 2 ms search.
 */
import http from 'node:http';

export interface Reply { status: number; text: string }

export class KeepAliveClient {
  private readonly agent: http.Agent;
  private readonly host: string;
  private readonly port: number;

  /** `base` is the server's URL (`http://host:port`); `sockets` bounds the connections kept open. */
  constructor(base: string, sockets: number) {
    const u = new URL(base);
    this.host = u.hostname;
    this.port = Number(u.port);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  }

  /**
   * POSTs a body (JSON unless `contentType` says otherwise) and reads the whole reply (no compression asked for,
   * as the official clients by default).
   */
  post(path: string, body: string | Uint8Array, contentType = 'application/json'): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = http.request({
        host: this.host, port: this.port, path, method: 'POST', agent: this.agent,
        headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(body) },
      }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (b: Buffer) => parts.push(b));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void { this.agent.destroy(); }
}
