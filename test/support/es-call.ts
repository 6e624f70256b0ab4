import type { TestServer } from './server.ts';

export interface EsReply { status: number; body: any }

/**
 * A plain HTTP call to a test server's documents API: JSON bodies (NDJSON strings when `ndjson`), the reply
 * parsed as JSON when it is JSON and kept as text otherwise.
 */
export async function esCall(s: TestServer, method: string, path: string, body?: unknown, ndjson = false): Promise<EsReply> {
  const res = await fetch(s.esUrl + path, {
    method, body: body === undefined ? undefined : ndjson ? body as string : JSON.stringify(body),
    headers: body === undefined ? {} : { 'content-type': ndjson ? 'application/x-ndjson' : 'application/json' },
  });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* text */ }
  return { status: res.status, body: parsed };
}
