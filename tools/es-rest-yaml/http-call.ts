/**
 * Sends one request with node:http rather than fetch, because fetch refuses a body on GET and the YAML
 * tests send GET requests with bodies (as ES's own low-level client does).
 */
import { request } from 'node:http';

export interface RawResponse { status: number; contentType: string; text: string }

export function httpCall(url: string, method: string, headers: Record<string, string>, body: string | undefined): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(body);
    const h = { ...headers, ...(payload ? { 'content-length': String(payload.length) } : {}) };
    const req = request(url, { method, headers: h }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({
        status: res.statusCode ?? 0,
        contentType: String(res.headers['content-type'] ?? ''),
        text: Buffer.concat(chunks).toString('utf8'),
      }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}
