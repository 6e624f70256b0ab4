/**
 * Engine error registry. Every error the engine throws carries a stable `code` from `ERRORS` and the
 * `details` the wire layers need to build their envelopes (index names, positions, file offsets…).
 * The engine never names HTTP statuses or peer error types: the wire layers under `src/server` map codes to those.
 *
 * Errors cross worker boundaries as plain `{code, message, details}` (custom classes do not survive
 * `postMessage`); `toWire`/`fromWire` do that round trip.
 *
 * This module imports nothing. Each service area keeps its codes in its own block below so that work on
 * one area does not collide with another; `docs/errors.md` lists them all and a test keeps the two in sync.
 */

export const ERRORS = {
  // ── generic ─────────────────────────────────────────────────────────────
  INTERNAL: 'internal error: %s',
  INVALID_ARGUMENT: '%s',
  NOT_FOUND: '%s',
  CONFLICT: '%s',
  PARSE: '%s',
  LIMIT_EXCEEDED: '%s',
  OVERLOADED: 'rejected execution: queue capacity %s reached',
  CORRUPTION: 'corruption in %s at offset %s: %s',
  FORMAT_VERSION: 'unsupported format version %s in %s (supported %s..%s)',
  QUERY_TIMEOUT: 'query timed out in %s',
  QUERY_CANCELED: 'query was canceled in %s',
  WORKER_CRASHED: 'worker %s crashed: %s',
  LOCKED: 'data directory %s is in use by another process (lock file %s)',
  DISK_FULL: 'no space left on the device writing %s: %s',

  // ── documents (Elasticsearch API) ───────────────────────────────────────
  DOC_INDEX_NOT_FOUND: 'no such index',
  DOC_INDEX_EXISTS: 'index [%s/%s] already exists',
  DOC_INVALID_INDEX_NAME: 'Invalid index name [%s], %s',
  DOC_INVALID_ALIAS_NAME: 'Invalid alias name [%s], %s',
  DOC_INVALID_TYPE_NAME: '%s',
  DOC_INVALID_TEMPLATE: 'index_template [%s] invalid, cause [%s]',
  DOC_TEMPLATE_MISSING: 'index_template [%s] missing',
  DOC_REPOSITORY_MISSING: '[%s] missing',
  DOC_SHARD_NOT_FOUND: 'no such shard',
  DOC_REPOSITORY: '[%s] %s',
  DOC_ALIASES_NOT_FOUND: 'aliases [%s] missing',
  DOC_TYPE_MISSING: 'type[[%s]] missing',
  DOC_MAPPER_PARSING: '%s',
  DOC_STRICT_DYNAMIC: 'mapping set to strict, dynamic introduction of [%s] within [%s] is not allowed',
  DOC_ILLEGAL_ARGUMENT: '%s',
  DOC_ILLEGAL_STATE: '%s',
  DOC_NUMBER_FORMAT: '%s',
  DOC_JSON_PARSE: '%s',
  /** A `_bulk` action line that is not JSON: the whole request is refused before any item runs. */
  DOC_BULK_JSON_PARSE: '%s',
  DOC_NOT_X_CONTENT: '%s',
  DOC_VALIDATION: 'Validation Failed: %s',
  DOC_PARSE: '%s',
  /** The `fail` ingest processor's own failure (its rendered message). */
  DOC_INGEST_FAIL: '%s',
  /** A processor's failure as its pipeline reports it: `cause` is the processor's error, `header` names the processor. */
  DOC_INGEST_PROCESSOR: '%s',
  /** The IllegalArgumentException ES wraps a processor's failure in, between the two above (rendering only). */
  DOC_INGEST_CAUSE: '%s',
  /** `GET /_tasks/{id}?wait_for_completion=true` gave up before the task finished. */
  DOC_TASK_WAIT_TIMEOUT: 'Timed out waiting for completion of [%s]',
  DOC_VERSION_CONFLICT: '[%s][%s]: version conflict, %s',
  DOC_MISSING: '[%s][%s]: document missing',
  DOC_ROUTING_MISSING: 'routing is required for [%s]/[%s]/[%s]',
  DOC_SCRIPT_FAILED: 'failed to execute script',
  DOC_SCRIPT: '%s',
  DOC_SCRIPT_NULL_POINTER: '%s',
  DOC_SCRIPT_ARITHMETIC: '%s',
  DOC_SCRIPT_CLASS_CAST: '%s',
  DOC_SCRIPT_INDEX_BOUNDS: '%s',
  DOC_MAPPING_UPDATE_NEEDED: 'mapping update needed for [%s]',
  /** A shard failed for damaged files; details {index, shard, cause (the corruption with file and offset)}. */
  DOC_SHARD_FAILED: '[%s][%s] shard failed: %s',
  /** A write refused by a `cluster.blocks.*` setting; the argument is ES's block description. */
  DOC_CLUSTER_BLOCK: 'blocked by: [%s];',
  /** A read or write of a closed index; details {index_uuid, index}. */
  DOC_INDEX_CLOSED: 'closed',

  // ── search ──────────────────────────────────────────────────────────────
  /** Bad query DSL / search body; details {line, col}. */
  SEARCH_PARSING: '%s',
  /** Malformed JSON in a search body (ES 6.8: 500 json_parse_exception). */
  SEARCH_JSON_PARSE: '%s',
  /** A query that cannot be built against a shard's mapping; details {index, cause?: {code, message}}. */
  SEARCH_QUERY_SHARD: '%s',
  /** The cause behind a query_shard_exception (nested path checks). */
  SEARCH_ILLEGAL_STATE: '%s',
  /** Invalid search request argument (result window, fielddata, negative size…). */
  SEARCH_ILLEGAL_ARGUMENT: '%s',
  /** Unknown or expired scroll id. */
  SEARCH_CONTEXT_MISSING: 'No search context found for id [%s]',
  /** Request validation (missing scroll_id…). */
  SEARCH_VALIDATION: 'Validation Failed: 1: %s;',
  /** Every shard failed (status of a client error). */
  SEARCH_PHASE_FAILED: '%s',
  /** Every shard failed (status of a server error). */
  SEARCH_PHASE_FAILED_500: '%s',
  /** A query value that does not parse as the field's number type (the cause of a query_shard_exception). */
  SEARCH_NUMBER_FORMAT: '%s',
  /** Every shard was unavailable (failed): Elasticsearch answers the shard failures' 503. */
  SEARCH_PHASE_FAILED_503: '%s',
  /** A request option a shard refuses in this combination (collapse with scroll or search_after). */
  SEARCH_SHARD_REFUSED: '%s',
  /** A search script failed at run time on a Java-level exception (ES's script_exception takes its cause's 500). */
  SEARCH_SCRIPT_RUNTIME: '%s',
  /** A request option that needs a search context the request does not have (`slice` without `scroll`). */
  SEARCH_CONTEXT: '%s',
  /** An aggregation built more buckets than `search.max_buckets` allows (ES's TooManyBucketsException); details {max_buckets}. */
  SEARCH_TOO_MANY_BUCKETS: 'Trying to create too many buckets. Must be less than or equal to: [%s] but was [%s]. This limit can be set by changing the [search.max_buckets] cluster level setting.',

  // ── metrics (TSDB, scrape) ──────────────────────────────────────────────
  /** A sample older than the series' newest in the head (Prometheus `storage.ErrOutOfOrderSample`). */
  TSDB_OUT_OF_ORDER: 'out of order sample',
  /** A sample at an existing timestamp with another value (`storage.ErrDuplicateSampleForTimestamp`). */
  TSDB_DUPLICATE_SAMPLE: 'duplicate sample for timestamp',
  /** A sample before the head's appendable window (`storage.ErrOutOfBounds`). */
  TSDB_OUT_OF_BOUNDS: 'out of bounds',
  /** A label set the head refuses: empty, or a name twice (`tsdb.ErrInvalidSample` wrapped with the reason). */
  TSDB_INVALID_SAMPLE: '%s: invalid sample',
  /**
   * A compaction (or merge) given up because the node is shutting down, as Prometheus's `DB.Close` cancels its
   * compaction's context; its partial output is removed and its inputs stay (details {phase}).
   */
  TSDB_MAINTENANCE_STOPPED: 'TSDB maintenance stopped for shutdown in %s',

  // ── PromQL ──────────────────────────────────────────────────────────────
  PROMQL_EXECUTION: '%s',

  // ── workflow ────────────────────────────────────────────────────────────
  WF_INVALID_JSON: '%s',
  WF_VALIDATION: '%s',
  WF_UNKNOWN_PROPERTY: '%s',
  WF_UNKNOWN_ACTION: '%s',
  WF_LIVESTREAM_REQUIRES_VERSION_1: '%s',
  WF_GRAPH_INVALID: '%s',
  WF_NOT_FOUND: 'workflow %s not found',
  WF_CONFLICT: '%s',
  WF_CHANNEL_NOT_FOUND: 'channel %s not found for business %s',
  WF_UNSUPPORTED_EVENT: 'unsupported event [%s]',
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** The codes of one service area's block (by prefix); each wire table maps the codes its API can meet. */
export type DocumentsErrorCode = Extract<ErrorCode, `DOC_${string}`>;
export type SearchErrorCode = Extract<ErrorCode, `SEARCH_${string}`>;
export type MetricsErrorCode = Extract<ErrorCode, `TSDB_${string}` | `PROMQL_${string}`>;
export type WorkflowErrorCode = Extract<ErrorCode, `WF_${string}`>;
/** Codes any service can meet (internal errors, timeouts, corruption, overload…). */
export type GenericErrorCode = Exclude<ErrorCode, DocumentsErrorCode | SearchErrorCode | MetricsErrorCode | WorkflowErrorCode>;

/** Fills the `%s` slots of a registry template in order. */
export function formatMessage(code: ErrorCode, args: readonly unknown[]): string {
  let i = 0;
  return ERRORS[code].replace(/%s/g, () => (i < args.length ? String(args[i++]) : ''));
}

export type ErrorDetails = Record<string, unknown>;

/**
 * Base of every engine error. `details` is plain data (it must survive structured clone and msgpack).
 * `category` names the class on the wire between threads; it is a declared string, not the constructor's
 * name, so a rename or a minifier cannot change what `fromWire` rebuilds.
 */
export class EngineError extends Error {
  static readonly category: string = 'EngineError';
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  readonly category: string;
  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.details = details;
    this.category = (new.target as typeof EngineError).category;
    this.name = new.target.name;
  }
  /** Builds an error whose message is the registry template filled with `args`. */
  static of<T extends EngineError>(
    this: new (code: ErrorCode, message: string, details?: ErrorDetails) => T,
    code: ErrorCode,
    args: readonly unknown[],
    details: ErrorDetails = {},
  ): T {
    return new this(code, formatMessage(code, args), details);
  }
}

export class InvalidArgumentError extends EngineError { static override readonly category = 'InvalidArgumentError'; }
export class NotFoundError extends EngineError { static override readonly category = 'NotFoundError'; }
export class ConflictError extends EngineError { static override readonly category = 'ConflictError'; }
export class LimitExceededError extends EngineError { static override readonly category = 'LimitExceededError'; }
export class OverloadedError extends EngineError { static override readonly category = 'OverloadedError'; }
export class InternalError extends EngineError { static override readonly category = 'InternalError'; }
export class QueryTimeoutError extends EngineError { static override readonly category = 'QueryTimeoutError'; }
export class QueryCanceledError extends EngineError { static override readonly category = 'QueryCanceledError'; }

/** A syntax error with the position where it was found (0-based offsets into the input). */
export class ParseError extends EngineError {
  static override readonly category = 'ParseError';
  constructor(code: ErrorCode, message: string, details: ErrorDetails & { start?: number; end?: number } = {}) {
    super(code, message, details);
  }
}

/** Bytes on disk that do not decode; names the file and the offset, never swallowed. */
export class CorruptionError extends EngineError {
  static override readonly category = 'CorruptionError';
  constructor(file: string, offset: number, reason: string) {
    super('CORRUPTION', formatMessage('CORRUPTION', [file, offset, reason]), { file, offset, reason });
  }
  get file(): string { return this.details.file as string; }
  get offset(): number { return this.details.offset as number; }
}

/** A file whose version is outside what this build reads. */
export class FormatVersionError extends EngineError {
  static override readonly category = 'FormatVersionError';
  constructor(file: string, found: number, min: number, max: number) {
    super('FORMAT_VERSION', formatMessage('FORMAT_VERSION', [found, file, min, max]), { file, found, min, max });
  }
}

/** The serialised form of an error at a thread boundary. */
export interface WireError {
  code: ErrorCode | string;
  message: string;
  details: ErrorDetails;
  category: string;
}

type Category = (new (code: ErrorCode, message: string, details?: ErrorDetails) => EngineError) & { readonly category: string };

const CATEGORIES = new Map<string, Category>([
  EngineError, InvalidArgumentError, NotFoundError, ConflictError, LimitExceededError, OverloadedError, InternalError,
  QueryTimeoutError, QueryCanceledError, ParseError,
].map((c: Category) => [c.category, c]));

/** Serialises any thrown value for `postMessage`/msgpack. Non-engine errors become INTERNAL. */
export function toWire(err: unknown): WireError {
  if (err instanceof EngineError) {
    return { code: err.code, message: err.message, details: err.details, category: err.category };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  return { code: 'INTERNAL', message: e.message, details: { stack: e.stack }, category: 'InternalError' };
}

/** Rebuilds a typed engine error from its wire form (the inverse of `toWire`). */
export function fromWire(w: WireError): EngineError {
  if (w.category === CorruptionError.category) {
    return new CorruptionError(String(w.details.file), Number(w.details.offset), String(w.details.reason));
  }
  if (w.category === FormatVersionError.category) {
    const d = w.details;
    return new FormatVersionError(String(d.file), Number(d.found), Number(d.min), Number(d.max));
  }
  const Ctor = CATEGORIES.get(w.category) ?? EngineError;
  const code = (w.code in ERRORS ? w.code : 'INTERNAL') as ErrorCode;
  return new Ctor(code, w.message, w.details);
}
