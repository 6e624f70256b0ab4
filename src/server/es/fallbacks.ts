/** How port 9200 answers requests no route takes, and bodies over the limit, as Elasticsearch 6.8 does. */
import type { ApiFallbacks } from '../dispatch.ts';
import type { HttpResponse } from '../http.ts';
import type { GateEnvelopes } from '../web-gate.ts';
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

/** Elasticsearch's `ByteSizeValue` rendering (`512mb`, `1.2gb`). */
function byteSize(n: number): string {
  const units = ['b', 'kb', 'mb', 'gb', 'tb'];
  let v = n, u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return `${u === 0 ? v : Number(v.toFixed(1))}${units[u]}`;
}

/** The `in_flight_requests` circuit breaker tripped (ES 6.8: 429, bytes wanted and limit in the cause). */
export function esOverloaded(_req: unknown, wantedBytes: number, usedBytes: number, limitBytes: number): HttpResponse {
  const would = usedBytes + wantedBytes;
  return esEnvelope(429, 'circuit_breaking_exception',
    `[in_flight_requests] Data too large, data for [<http_request>] would be [${would}/${byteSize(would)}], which is larger than the limit of [${limitBytes}/${byteSize(limitBytes)}]`,
    { bytes_wanted: would, bytes_limit: limitBytes });
}

/** `http.max_content_length` exceeded. */
export function esTooLarge(_req: unknown, limitBytes: number): HttpResponse {
  return esEnvelope(413, 'content_too_long_exception', `request body is too large: limit is [${limitBytes}] bytes`);
}

const ES_CHALLENGE = 'Basic realm="security" charset="UTF-8"';

/**
 * Refusals of `--http.web-config.file` in X-Pack security's form (6.8): `security_exception`, 401, the
 * challenge both as a header and inside the error; the reason says whether credentials were missing or wrong.
 */
export const esGate: GateEnvelopes = {
  unauthorized: (req, user) => {
    const uri = req.rawQuery ? `${req.path}?${req.rawQuery}` : req.path;
    const reason = user === null ? `missing authentication token for REST request [${uri}]` : `unable to authenticate user [${user}] for REST request [${uri}]`;
    const r = esEnvelope(401, 'security_exception', reason, { header: { 'WWW-Authenticate': ES_CHALLENGE } });
    return { ...r, headers: { ...r.headers, 'WWW-Authenticate': ES_CHALLENGE } };
  },
  configError: () => esEnvelope(500, 'exception', 'the web config file (--http.web-config.file) is invalid; see the server log'),
};
