/**
 * Engine error codes → the workflow API's wire codes and HTTP statuses (spec §2). The envelope is
 * `{success:false, error:"<CODE>: <message>", data}`; `data.path` carries the offending JSON path.
 */
import { EngineError, type GenericErrorCode, type WireError, type WorkflowErrorCode } from '../../engine/errors.ts';
import type { HttpResponse } from '../http.ts';
import { workflowEnvelope } from './fallbacks.ts';

/**
 * Every code the workflow API can meet → wire code and status; null answers INTERNAL without details (the
 * message of an internal failure is not the client's business). Keyed by the code type, so a new code does
 * not compile until it is mapped here.
 */
const TABLE: Readonly<Record<GenericErrorCode | WorkflowErrorCode, readonly [string, number] | null>> = {
  WF_INVALID_JSON: ['INVALID_JSON', 400],
  WF_VALIDATION: ['VALIDATION_ERROR', 400],
  INVALID_ARGUMENT: ['VALIDATION_ERROR', 400],
  WF_UNKNOWN_PROPERTY: ['UNKNOWN_PROPERTY', 400],
  WF_UNKNOWN_ACTION: ['UNKNOWN_ACTION', 400],
  WF_LIVESTREAM_REQUIRES_VERSION_1: ['LIVESTREAM_REQUIRES_VERSION_1', 400],
  WF_GRAPH_INVALID: ['GRAPH_INVALID', 400],
  WF_NOT_FOUND: ['WORKFLOW_NOT_FOUND', 404],
  WF_CONFLICT: ['CONFLICT', 409],
  WF_CHANNEL_NOT_FOUND: ['CHANNEL_NOT_FOUND', 404],
  WF_UNSUPPORTED_EVENT: ['UNSUPPORTED_EVENT', 400],
  LIMIT_EXCEEDED: ['PAYLOAD_TOO_LARGE', 413],
  OVERLOADED: ['RATE_LIMITED', 429],
  DISK_FULL: ['SERVICE_UNAVAILABLE', 503],
  // A damaged partition store: the message names the file and what to do.
  CORRUPTION: ['SERVICE_UNAVAILABLE', 503],
  INTERNAL: null, NOT_FOUND: null, CONFLICT: null, PARSE: null, FORMAT_VERSION: null, QUERY_TIMEOUT: null,
  QUERY_CANCELED: null, WORKER_CRASHED: null, LOCKED: null,
};

/** `CODE: message` and status of an engine error (anything unknown is INTERNAL without details). */
export function wireCode(err: { code: string; message: string }): { code: string; status: number; text: string } {
  const hit = TABLE[err.code as keyof typeof TABLE];
  if (!hit) return { code: 'INTERNAL', status: 500, text: 'INTERNAL: internal error' };
  return { code: hit[0], status: hit[1], text: `${hit[0]}: ${err.message}` };
}

export function errorResponse(err: unknown): HttpResponse {
  if (!(err instanceof EngineError)) return workflowEnvelope(500, 'INTERNAL: internal error');
  const w = wireCode(err);
  const path = err.details.path;
  return workflowEnvelope(w.status, w.text, typeof path === 'string' ? { path } : null);
}

/** A per-item error inside a batch reply. */
export function itemError(w: WireError): { success: false; error: string; data: unknown } {
  const c = wireCode(w);
  const path = w.details?.path;
  return { success: false, error: c.text, data: typeof path === 'string' ? { path, status: c.status } : { status: c.status } };
}

export function invalidJson(what: string): HttpResponse {
  return workflowEnvelope(400, `INVALID_JSON: ${what}`, null);
}
