/** How the metrics port answers requests no route takes, as Prometheus's Go HTTP mux does. */
import type { ApiFallbacks } from '../dispatch.ts';
import type { GateEnvelopes } from '../web-gate.ts';
import { promErrorFrom } from './respond.ts';

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8' };

export const promFallbacks: ApiFallbacks = {
  notFound: () => ({ status: 404, headers: TEXT, body: '404 page not found\n' }),
  methodNotAllowed: () => ({ status: 405, headers: TEXT, body: 'Method Not Allowed\n' }),
  error: (err) => promErrorFrom(err),
};

/** Request bodies in flight over the node's budget: Prometheus's 503 `unavailable`, so clients back off and retry. */
export function promOverloaded(_req: unknown, wantedBytes: number, usedBytes: number, limitBytes: number) {
  return { status: 503, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ status: 'error', errorType: 'unavailable', error: `request bodies in flight would take ${usedBytes + wantedBytes} bytes, over the limit of ${limitBytes}; retry later` }) };
}

export function promTooLarge(_req: unknown, limitBytes: number) {
  return { status: 413, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ status: 'error', errorType: 'bad_data', error: `request body larger than ${limitBytes} bytes` }) };
}

/** Refusals of `--web.config.file`, as exporter-toolkit writes them (Go's `http.Error` with the status text). */
export const promGate: GateEnvelopes = {
  unauthorized: () => ({ status: 401, headers: { ...TEXT, 'X-Content-Type-Options': 'nosniff', 'WWW-Authenticate': 'Basic' }, body: 'Unauthorized\n' }),
  configError: () => ({ status: 500, headers: { ...TEXT, 'X-Content-Type-Options': 'nosniff' }, body: 'Internal Server Error\n' }),
};
