/** The workflow API's envelope `{success, error, data}` for unmatched routes, over-limit bodies and crashes. */
import type { ApiFallbacks } from '../dispatch.ts';
import type { HttpResponse } from '../http.ts';
import type { GateEnvelopes } from '../web-gate.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };

export function workflowEnvelope(status: number, error: string, data: unknown = null): HttpResponse {
  return { status, headers: JSON_HEADERS, body: JSON.stringify({ success: status < 400, error, data }) };
}

export const workflowFallbacks: ApiFallbacks = {
  notFound: (req) => workflowEnvelope(404, `NOT_FOUND: no route for ${req.method} ${req.path}`),
  methodNotAllowed: (req, allowed) => workflowEnvelope(405, `METHOD_NOT_ALLOWED: ${req.method} ${req.path} allows ${allowed.join(', ')}`),
  error: () => workflowEnvelope(500, 'INTERNAL: internal error'),
};

/** Request bodies in flight over the node's budget: 429, retry later. */
export function workflowOverloaded(_req: unknown, wantedBytes: number, usedBytes: number, limitBytes: number): HttpResponse {
  return workflowEnvelope(429, `TOO_MANY_REQUESTS: request bodies in flight would take ${usedBytes + wantedBytes} bytes, over the limit of ${limitBytes}; retry later`);
}

export function workflowTooLarge(_req: unknown, limitBytes: number): HttpResponse {
  return workflowEnvelope(413, `PAYLOAD_TOO_LARGE: body over ${limitBytes} bytes`);
}

/** Refusals of `--workflow.web-config.file`. */
export const workflowGate: GateEnvelopes = {
  unauthorized: (_req, user) => {
    const r = workflowEnvelope(401, user === null ? 'UNAUTHORIZED: credentials required' : `UNAUTHORIZED: wrong credentials for user ${user}`);
    return { ...r, headers: { ...r.headers, 'WWW-Authenticate': 'Basic' } };
  },
  configError: () => workflowEnvelope(500, 'INTERNAL: the web config file (--workflow.web-config.file) is invalid; see the server log'),
};
