/**
 * Constructors for the documents-area engine errors. `details` carries what the Elasticsearch envelope
 * needs (`index`, `index_uuid`, `shard`, `resource.type`/`resource.id`) and an optional `cause`, the
 * plain form of a nested error; the wire layer (`src/server/es/errors.ts`) names types and statuses.
 */
import {
  ConflictError, EngineError, InvalidArgumentError, NotFoundError, ParseError, formatMessage,
  type ErrorCode, type ErrorDetails,
} from '../errors.ts';

export interface ErrorCause { code: ErrorCode; message: string; details: ErrorDetails }

const NOT_FOUND = new Set<ErrorCode>(['DOC_INDEX_NOT_FOUND', 'DOC_TEMPLATE_MISSING', 'DOC_ALIASES_NOT_FOUND', 'DOC_TYPE_MISSING', 'DOC_MISSING', 'DOC_REPOSITORY_MISSING', 'DOC_SHARD_NOT_FOUND']);

/** Builds the error for `code` with the registry template filled by `args`. */
export function docError(code: ErrorCode, args: readonly unknown[], details: ErrorDetails = {}): EngineError {
  const msg = formatMessage(code, args);
  if (NOT_FOUND.has(code)) return new NotFoundError(code, msg, details);
  if (code === 'DOC_VERSION_CONFLICT') return new ConflictError(code, msg, details);
  if (code === 'DOC_PARSE' || code === 'DOC_JSON_PARSE') return new ParseError(code, msg, details);
  return new InvalidArgumentError(code, msg, details);
}

/** A plain cause (no class) for `details.cause`. */
export function cause(code: ErrorCode, args: readonly unknown[], details: ErrorDetails = {}): ErrorCause {
  return { code, message: formatMessage(code, args), details };
}

export const illegalArgument = (msg: string, details: ErrorDetails = {}): EngineError =>
  docError('DOC_ILLEGAL_ARGUMENT', [msg], details);

export const mapperParsing = (msg: string, details: ErrorDetails = {}): EngineError =>
  docError('DOC_MAPPER_PARSING', [msg], details);

/** `index_not_found_exception` for `name`; `resourceType` is `index_or_alias` or `index_expression`. */
export function indexNotFound(name: string, resourceType: 'index_or_alias' | 'index_expression' = 'index_or_alias'): EngineError {
  return docError('DOC_INDEX_NOT_FOUND', [], { 'resource.type': resourceType, 'resource.id': name, index_uuid: '_na_', index: name });
}

/** `action_request_validation_exception` from a list of failures ("1: a;2: b;"). */
/** A read or write of a `_close`d index. */
export function indexClosed(index: { name: string; uuid: string }): EngineError {
  return docError('DOC_INDEX_CLOSED', [], { index_uuid: index.uuid, index: index.name });
}

export function validationFailed(failures: string[]): EngineError {
  return docError('DOC_VALIDATION', [failures.map((f, i) => `${i + 1}: ${f};`).join('')]);
}

