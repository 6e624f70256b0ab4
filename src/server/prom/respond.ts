/**
 * Prometheus API envelopes (`web/api/v1/api.go`): `{status:"success", data, warnings?}` and
 * `{status:"error", errorType, error}`, with the status codes Prometheus pairs with each error type.
 * Engine errors are mapped here and nowhere else.
 */
import { EngineError } from '../../engine/errors.ts';
import type { HttpResponse } from '../http.ts';

export type PromErrorType = 'bad_data' | 'execution' | 'timeout' | 'canceled' | 'internal' | 'unavailable' | 'not_found';

const STATUS_OF: Record<PromErrorType, number> = {
  bad_data: 400, execution: 422, timeout: 503, canceled: 503, internal: 500, unavailable: 503, not_found: 404,
};

const JSON_HEADERS = { 'Content-Type': 'application/json' };

export function promSuccess(data: unknown, warnings?: string[]): HttpResponse {
  const body = warnings && warnings.length ? { status: 'success', data, warnings } : { status: 'success', data };
  return { status: 200, headers: JSON_HEADERS, body: JSON.stringify(body) };
}

export function promError(errorType: PromErrorType, message: string, status = STATUS_OF[errorType]): HttpResponse {
  return { status, headers: JSON_HEADERS, body: JSON.stringify({ status: 'error', errorType, error: message }) };
}

/** Maps an engine error (or anything thrown) to the Prometheus envelope. */
export function promErrorFrom(err: unknown): HttpResponse {
  if (!(err instanceof EngineError)) return promError('internal', (err as Error)?.message ?? String(err));
  switch (err.code) {
    case 'INVALID_ARGUMENT': case 'PARSE': return promError('bad_data', err.message);
    case 'QUERY_TIMEOUT': return promError('timeout', err.message);
    case 'QUERY_CANCELED': return promError('canceled', err.message);
    case 'OVERLOADED': return promError('unavailable', err.message);
    case 'NOT_FOUND': return promError('not_found', err.message);
    case 'LIMIT_EXCEEDED': return promError('execution', err.message);
    default: {
      const mapped = (err.details as { promErrorType?: PromErrorType }).promErrorType;
      return mapped ? promError(mapped, err.message) : promError('internal', err.message);
    }
  }
}
