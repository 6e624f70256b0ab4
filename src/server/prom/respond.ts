/**
 * Prometheus API envelopes (`web/api/v1/api.go`): `{status:"success", data, warnings?}` and
 * `{status:"error", errorType, error}`, with the status codes Prometheus pairs with each error type.
 * Engine errors are mapped here and nowhere else.
 */
import { EngineError, type GenericErrorCode, type MetricsErrorCode } from '../../engine/errors.ts';
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

/**
 * Every code the metrics API can meet → Prometheus's `errorType` (`returnAPIError`); keyed by the code type,
 * so a new code does not compile until it is mapped here.
 */
export const PROM_ERRORS: Readonly<Record<GenericErrorCode | MetricsErrorCode, PromErrorType>> = {
  INTERNAL: 'internal', INVALID_ARGUMENT: 'bad_data', NOT_FOUND: 'not_found', CONFLICT: 'internal', PARSE: 'bad_data',
  LIMIT_EXCEEDED: 'execution', OVERLOADED: 'unavailable', CORRUPTION: 'internal', FORMAT_VERSION: 'internal',
  QUERY_TIMEOUT: 'timeout', QUERY_CANCELED: 'canceled', WORKER_CRASHED: 'internal', LOCKED: 'internal', DISK_FULL: 'unavailable',
  TSDB_OUT_OF_ORDER: 'bad_data', TSDB_DUPLICATE_SAMPLE: 'bad_data', TSDB_OUT_OF_BOUNDS: 'bad_data',
  TSDB_INVALID_SAMPLE: 'bad_data', TSDB_MAINTENANCE_STOPPED: 'unavailable',
  PROMQL_EXECUTION: 'execution',
};

/** Maps an engine error (or anything thrown) to the Prometheus envelope; codes of other APIs are internal. */
export function promErrorFrom(err: unknown): HttpResponse {
  if (!(err instanceof EngineError)) return promError('internal', (err as Error)?.message ?? String(err));
  return promError(PROM_ERRORS[err.code as keyof typeof PROM_ERRORS] ?? 'internal', err.message);
}
