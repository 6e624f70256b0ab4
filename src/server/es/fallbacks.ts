/** How port 9200 answers requests no route takes, and bodies over the limit, as Elasticsearch 6.8 does. */
import type { ApiFallbacks } from '../dispatch.ts';
import type { HttpResponse } from '../http.ts';
import { errorResponse } from './errors.ts';

const JSON_HEADERS = { 'content-type': 'application/json; charset=UTF-8' };
const TEXT_HEADERS = { 'content-type': 'text/plain; charset=UTF-8' };

export function esEnvelope(status: number, type: string, reason: string, extra: Record<string, unknown> = {}): HttpResponse {
  const cause = { type, reason, ...extra };
  return { status, headers: JSON_HEADERS, body: JSON.stringify({ error: { root_cause: [cause], ...cause }, status }) };
}

export const esFallbacks: ApiFallbacks = {
  notFound: (req) => ({ status: 400, headers: TEXT_HEADERS, body: `No handler found for uri [${req.path}] and method [${req.method}]` }),
  methodNotAllowed: (req, allowed) => ({
    status: 405,
    headers: JSON_HEADERS,
    body: JSON.stringify({ error: `Incorrect HTTP method for uri [${req.path}] and method [${req.method}], allowed: [${allowed.join(', ')}]`, status: 405 }),
  }),
  error: (err) => errorResponse(err),
};

/** `http.max_content_length` exceeded. */
export function esTooLarge(_req: unknown, limitBytes: number): HttpResponse {
  return esEnvelope(413, 'content_too_long_exception', `request body is too large: limit is [${limitBytes}] bytes`);
}
