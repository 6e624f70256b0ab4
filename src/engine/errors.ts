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

  // ── documents (Elasticsearch API) ───────────────────────────────────────

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

  // ── metrics (TSDB, scrape) ──────────────────────────────────────────────

  // ── PromQL ──────────────────────────────────────────────────────────────

  // ── workflow ────────────────────────────────────────────────────────────
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** Fills the `%s` slots of a registry template in order. */
export function formatMessage(code: ErrorCode, args: readonly unknown[]): string {
  let i = 0;
  return ERRORS[code].replace(/%s/g, () => (i < args.length ? String(args[i++]) : ''));
}

export type ErrorDetails = Record<string, unknown>;

/** Base of every engine error. `details` is plain data (it must survive structured clone and msgpack). */
export class EngineError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.details = details;
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

export class InvalidArgumentError extends EngineError {}
export class NotFoundError extends EngineError {}
export class ConflictError extends EngineError {}
export class LimitExceededError extends EngineError {}
export class OverloadedError extends EngineError {}
export class InternalError extends EngineError {}
export class QueryTimeoutError extends EngineError {}
export class QueryCanceledError extends EngineError {}

/** A syntax error with the position where it was found (0-based offsets into the input). */
export class ParseError extends EngineError {
  constructor(code: ErrorCode, message: string, details: ErrorDetails & { start?: number; end?: number } = {}) {
    super(code, message, details);
  }
}

/** Bytes on disk that do not decode; names the file and the offset, never swallowed. */
export class CorruptionError extends EngineError {
  constructor(file: string, offset: number, reason: string) {
    super('CORRUPTION', formatMessage('CORRUPTION', [file, offset, reason]), { file, offset, reason });
  }
  get file(): string { return this.details.file as string; }
  get offset(): number { return this.details.offset as number; }
}

/** A file whose version is outside what this build reads. */
export class FormatVersionError extends EngineError {
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

const CATEGORIES: Record<string, new (code: ErrorCode, message: string, details?: ErrorDetails) => EngineError> = {
  EngineError,
  InvalidArgumentError,
  NotFoundError,
  ConflictError,
  LimitExceededError,
  OverloadedError,
  InternalError,
  QueryTimeoutError,
  QueryCanceledError,
  ParseError,
};

/** Serialises any thrown value for `postMessage`/msgpack. Non-engine errors become INTERNAL. */
export function toWire(err: unknown): WireError {
  if (err instanceof EngineError) {
    return { code: err.code, message: err.message, details: err.details, category: err.constructor.name };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  return { code: 'INTERNAL', message: e.message, details: { stack: e.stack }, category: 'InternalError' };
}

/** Rebuilds a typed engine error from its wire form (the inverse of `toWire`). */
export function fromWire(w: WireError): EngineError {
  if (w.category === 'CorruptionError') {
    return new CorruptionError(String(w.details.file), Number(w.details.offset), String(w.details.reason));
  }
  if (w.category === 'FormatVersionError') {
    const d = w.details;
    return new FormatVersionError(String(d.file), Number(d.found), Number(d.min), Number(d.max));
  }
  const Ctor = CATEGORIES[w.category] ?? EngineError;
  const code = (w.code in ERRORS ? w.code : 'INTERNAL') as ErrorCode;
  return new Ctor(code, w.message, w.details);
}
