/**
 * Engine error codes → Elasticsearch 6.8 error types and HTTP statuses, and the error envelope:
 * `{error: {root_cause: [...], type, reason, <metadata>, caused_by}, status}`. Metadata keys come in ES's
 * order (`resource.type`, `resource.id`, `index_uuid`, `shard`, `index`), then exception fields
 * (`script_stack`, `script`, `lang`, `line`, `col`, …), then `caused_by`.
 */
import { EngineError, type DocumentsErrorCode, type ErrorDetails, type GenericErrorCode, type SearchErrorCode } from '../../engine/errors.ts';
import type { HttpResponse } from '../http.ts';
import { expandProcessorFailure } from './ingest-failure.ts';

export interface EsErrorType { readonly type: string; readonly status: number }

/**
 * Every code the documents and search APIs can meet → ES type and status. An explicit table (ES derives the
 * type from the Java class name; a rename must not change the wire), keyed by the code type so that a new
 * code does not compile until it is mapped here.
 */
export const ES_ERRORS: Readonly<Record<GenericErrorCode | DocumentsErrorCode | SearchErrorCode, EsErrorType>> = {
  INTERNAL: { type: 'exception', status: 500 },
  INVALID_ARGUMENT: { type: 'illegal_argument_exception', status: 400 },
  NOT_FOUND: { type: 'resource_not_found_exception', status: 404 },
  CONFLICT: { type: 'version_conflict_engine_exception', status: 409 },
  PARSE: { type: 'parse_exception', status: 400 },
  LIMIT_EXCEEDED: { type: 'illegal_argument_exception', status: 400 },
  OVERLOADED: { type: 'es_rejected_execution_exception', status: 429 },
  CORRUPTION: { type: 'corrupt_index_exception', status: 500 },
  DOC_SHARD_FAILED: { type: 'no_shard_available_action_exception', status: 503 },
  DOC_CLUSTER_BLOCK: { type: 'cluster_block_exception', status: 403 },
  DOC_INDEX_CLOSED: { type: 'index_closed_exception', status: 400 },
  FORMAT_VERSION: { type: 'illegal_state_exception', status: 500 },
  QUERY_TIMEOUT: { type: 'search_timeout_exception', status: 504 },
  QUERY_CANCELED: { type: 'task_cancelled_exception', status: 400 },
  WORKER_CRASHED: { type: 'node_closed_exception', status: 500 },
  LOCKED: { type: 'illegal_state_exception', status: 500 },
  // A full disk is a retryable rejection, as ES's write thread pool answers when it cannot take more work.
  DISK_FULL: { type: 'es_rejected_execution_exception', status: 429 },
  DOC_INDEX_NOT_FOUND: { type: 'index_not_found_exception', status: 404 },
  DOC_INDEX_EXISTS: { type: 'resource_already_exists_exception', status: 400 },
  // Ingest failures as ES 6.8 reports them (ingest-failure.ts): ElasticsearchException(IllegalArgumentException(the
  // processor's exception)), a 500 because the outer exception wraps nothing ES can take a status from.
  DOC_INGEST_PROCESSOR: { type: 'exception', status: 500 },
  DOC_INGEST_CAUSE: { type: 'illegal_argument_exception', status: 400 },
  // FailProcessorException is a RuntimeException: no status of its own.
  DOC_INGEST_FAIL: { type: 'fail_processor_exception', status: 500 },
  // ElasticsearchTimeoutException: ES drops the class's `Elasticsearch` prefix; it keeps the default status.
  DOC_TASK_WAIT_TIMEOUT: { type: 'timeout_exception', status: 500 },
  DOC_INVALID_INDEX_NAME: { type: 'invalid_index_name_exception', status: 400 },
  DOC_INVALID_ALIAS_NAME: { type: 'invalid_alias_name_exception', status: 400 },
  DOC_INVALID_TYPE_NAME: { type: 'invalid_type_name_exception', status: 400 },
  DOC_INVALID_TEMPLATE: { type: 'invalid_index_template_exception', status: 400 },
  DOC_TEMPLATE_MISSING: { type: 'index_template_missing_exception', status: 404 },
  DOC_REPOSITORY_MISSING: { type: 'repository_missing_exception', status: 404 },
  DOC_SHARD_NOT_FOUND: { type: 'shard_not_found_exception', status: 404 },
  DOC_REPOSITORY: { type: 'repository_exception', status: 500 },
  DOC_ALIASES_NOT_FOUND: { type: 'aliases_not_found_exception', status: 404 },
  DOC_TYPE_MISSING: { type: 'type_missing_exception', status: 404 },
  DOC_MAPPER_PARSING: { type: 'mapper_parsing_exception', status: 400 },
  DOC_STRICT_DYNAMIC: { type: 'strict_dynamic_mapping_exception', status: 400 },
  DOC_ILLEGAL_ARGUMENT: { type: 'illegal_argument_exception', status: 400 },
  DOC_ILLEGAL_STATE: { type: 'illegal_state_exception', status: 500 },
  DOC_NUMBER_FORMAT: { type: 'number_format_exception', status: 400 },
  DOC_JSON_PARSE: { type: 'json_parse_exception', status: 500 },
  DOC_BULK_JSON_PARSE: { type: 'json_parse_exception', status: 400 },
  DOC_NOT_X_CONTENT: { type: 'not_x_content_exception', status: 400 },
  DOC_VALIDATION: { type: 'action_request_validation_exception', status: 400 },
  DOC_PARSE: { type: 'parse_exception', status: 400 },
  DOC_VERSION_CONFLICT: { type: 'version_conflict_engine_exception', status: 409 },
  DOC_MISSING: { type: 'document_missing_exception', status: 404 },
  DOC_ROUTING_MISSING: { type: 'routing_missing_exception', status: 400 },
  DOC_SCRIPT_FAILED: { type: 'illegal_argument_exception', status: 400 },
  DOC_SCRIPT: { type: 'script_exception', status: 400 },
  DOC_SCRIPT_NULL_POINTER: { type: 'null_pointer_exception', status: 500 },
  DOC_SCRIPT_ARITHMETIC: { type: 'arithmetic_exception', status: 500 },
  DOC_SCRIPT_CLASS_CAST: { type: 'class_cast_exception', status: 500 },
  DOC_SCRIPT_INDEX_BOUNDS: { type: 'index_out_of_bounds_exception', status: 500 },
  DOC_MAPPING_UPDATE_NEEDED: { type: 'illegal_state_exception', status: 500 },
  SEARCH_PARSING: { type: 'parsing_exception', status: 400 },
  SEARCH_JSON_PARSE: { type: 'json_parse_exception', status: 500 },
  SEARCH_QUERY_SHARD: { type: 'query_shard_exception', status: 400 },
  SEARCH_ILLEGAL_STATE: { type: 'illegal_state_exception', status: 500 },
  SEARCH_ILLEGAL_ARGUMENT: { type: 'illegal_argument_exception', status: 400 },
  SEARCH_CONTEXT_MISSING: { type: 'search_context_missing_exception', status: 404 },
  SEARCH_VALIDATION: { type: 'action_request_validation_exception', status: 400 },
  SEARCH_PHASE_FAILED: { type: 'search_phase_execution_exception', status: 400 },
  SEARCH_PHASE_FAILED_500: { type: 'search_phase_execution_exception', status: 500 },
  SEARCH_PHASE_FAILED_503: { type: 'search_phase_execution_exception', status: 503 },
  SEARCH_NUMBER_FORMAT: { type: 'number_format_exception', status: 400 },
  // ES's SearchException keeps the default status of an ElasticsearchException.
  SEARCH_SHARD_REFUSED: { type: 'search_exception', status: 500 },
  SEARCH_SCRIPT_RUNTIME: { type: 'script_exception', status: 500 },
  SEARCH_CONTEXT: { type: 'search_context_exception', status: 500 },
  // 6.8's TooManyBucketsException answers 503 (400 only from 7.x on).
  SEARCH_TOO_MANY_BUCKETS: { type: 'too_many_buckets_exception', status: 503 },
};

const META_ORDER = ['resource.type', 'resource.id', 'index_uuid', 'shard', 'index'];
const FIELD_ORDER = ['line', 'col', 'phase', 'grouped', 'failed_shards', 'script_stack', 'script', 'lang', 'position'];
/** Detail keys that are engine-internal and never printed. */
const HIDDEN = new Set(['cause', 'stack', 'workerId', 'start', 'end']);

export interface ErrorLike { code: string; message: string; details: ErrorDetails }

const UNMAPPED: EsErrorType = { type: 'exception', status: 500 };
/** The wire type of a code; codes of other APIs (and unknown ones from a newer worker) are 500 `exception`. */
export const esErrorType = (code: string): EsErrorType => ES_ERRORS[code as keyof typeof ES_ERRORS] ?? UNMAPPED;
const typeOf = (e: ErrorLike): EsErrorType => esErrorType(e.code);

/**
 * One error object (`{type, reason, metadata…, caused_by?}`); `withCause` false for root causes. With `trace`
 * (`?error_trace=true`) each object also has `stack_trace`: the error's type and reason, then where it was
 * raised in Tessera (ES prints its Java stack there).
 */
export function errorObject(e: ErrorLike, withCause = true, trace = false): Record<string, unknown> {
  const out: Record<string, unknown> = { type: typeOf(e).type, reason: e.message === '' ? null : e.message };
  const d = e.details ?? {};
  for (const k of META_ORDER) if (d[k] !== undefined) out[k] = d[k];
  for (const k of FIELD_ORDER) if (d[k] !== undefined) out[k] = d[k];
  for (const k of Object.keys(d)) if (!(k in out) && !HIDDEN.has(k) && !META_ORDER.includes(k)) out[k] = d[k];
  if (trace) out.stack_trace = stackTrace(e);
  const c = d.cause as ErrorLike | undefined;
  if (withCause && c) out.caused_by = errorObject(c, true, trace);
  return out;
}

function stackTrace(e: ErrorLike): string {
  const head = `${typeOf(e).type}[${e.message}]`;
  const stack = (e as { stack?: unknown }).stack;
  return typeof stack === 'string' ? [head, ...stack.split('\n').slice(1)].join('\n') : head;
}

/** ES's guessed root cause: the innermost error that is an Elasticsearch exception (not a wrapped Java one). */
function rootCause(e: ErrorLike): ErrorLike {
  let cur = e;
  let best = e;
  while (cur.details?.cause) {
    cur = cur.details.cause as ErrorLike;
    if (isEsException(cur)) best = cur;
  }
  return best;
}

const JAVA_TYPES = new Set(['illegal_argument_exception', 'illegal_state_exception', 'number_format_exception', 'json_parse_exception',
  'null_pointer_exception', 'arithmetic_exception', 'class_cast_exception', 'index_out_of_bounds_exception', 'fail_processor_exception']);
const isEsException = (e: ErrorLike): boolean => !JAVA_TYPES.has(typeOf(e).type);

export function asErrorLike(err: unknown): ErrorLike {
  return expandProcessorFailure(plainErrorLike(err));
}

function plainErrorLike(err: unknown): ErrorLike {
  if (err instanceof EngineError) return err;
  const e = err as { code?: string; message?: string; details?: ErrorDetails };
  if (e && typeof e.code === 'string' && typeof e.message === 'string') return { code: e.code, message: e.message, details: e.details ?? {} };
  return { code: 'INTERNAL', message: (err as Error)?.message ?? String(err), details: {} };
}

/** The `{error: {...}, status}` body; `trace` adds each object's `stack_trace` (`?error_trace=true`). */
export function errorBody(err: unknown, trace = false): { error: Record<string, unknown>; status: number } {
  const e = asErrorLike(err);
  const status = typeOf(e).status;
  const top = errorObject(e, true, trace);
  return { error: { root_cause: [errorObject(rootCause(e), false, trace)], ...top }, status };
}

/** A bulk item's `error` (no root_cause) and status. */
export function itemError(err: unknown): { error: Record<string, unknown>; status: number } {
  const e = asErrorLike(err);
  return { error: errorObject(e, true), status: typeOf(e).status };
}

export const JSON_HEADERS = { 'content-type': 'application/json; charset=UTF-8' };
export const TEXT_HEADERS = { 'content-type': 'text/plain; charset=UTF-8' };

export function errorResponse(err: unknown, pretty = false): HttpResponse {
  const body = errorBody(err);
  return { status: body.status, headers: JSON_HEADERS, body: pretty ? `${JSON.stringify(body, null, 2).replace(/": /g, '" : ')}\n` : JSON.stringify(body) };
}
