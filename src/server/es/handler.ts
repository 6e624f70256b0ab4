/**
 * The wrapper every 9200 route goes through: Content-Type check (406), query-parameter whitelist, the request's
 * entry in the task list, error envelope for anything thrown (with `?pretty`), and body helpers with ES's parse
 * errors.
 */
import { docError } from '../../engine/documents/doc-errors.ts';
import { jsonProblemMessage, jsonStructureProblem } from '../../engine/codec/json-structure.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Params, RouteHandler } from '../router.ts';
import { errorBody } from './errors.ts';
import { json } from './json.ts';
import { checkParams, contentTypeProblem } from './params.ts';
import { esTasks } from './tasks.ts';

export type EsHandler = (req: HttpRequest, p: Params) => HttpResponse | Promise<HttpResponse>;

/** `onError` renders what `fn` throws; search routes pass their own (shard-failure envelopes). */
export function route(allowed: readonly string[], fn: EsHandler, onError: (req: HttpRequest, err: unknown) => HttpResponse = errorReply): RouteHandler {
  return async (req, p) => {
    const bad = contentTypeProblem(req);
    if (bad) return bad;
    const task = esTasks.startFor(req, Date.now());
    try {
      checkParams(req, allowed);
      return await fn(req, p);
    } catch (err) {
      return onError(req, err);
    } finally {
      esTasks.finish(task);
    }
  };
}

export function errorReply(req: HttpRequest, err: unknown): HttpResponse {
  const body = errorBody(err, req.query.get('error_trace') === 'true');
  return json(req, body.status, body);
}

/** The body as a JSON object for APIs that convert it to a map (create index, templates, aliases). */
export function bodyMap(req: HttpRequest, required = false): Record<string, unknown> | null {
  const text = bodyText(req);
  if (text.trim() === '') {
    if (required) throw docError('DOC_PARSE', ['request body is required']);
    return null;
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
    // What the routes do with the map recurses over it; ES's parser refuses duplicate keys.
    const problem = jsonStructureProblem(text);
    if (problem !== null) throw new Error(jsonProblemMessage(problem));
  } catch (e) {
    throw docError('DOC_PARSE', ['Failed to parse content to map'], { cause: { code: 'DOC_JSON_PARSE', message: (e as Error).message, details: {} } });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw docError('DOC_PARSE', ['Failed to parse content to map'], { cause: { code: 'DOC_JSON_PARSE', message: 'Current token is not START_OBJECT', details: {} } });
  }
  return v as Record<string, unknown>;
}

/** The request body, or the `?source=` parameter ES accepts instead of a body. */
export function bodyText(req: HttpRequest): string {
  if (req.body.length) return req.body.toString('utf8');
  return req.query.get('source') ?? '';
}

export function bodyBytes(req: HttpRequest): Buffer {
  if (req.body.length) return req.body;
  const s = req.query.get('source');
  return s === null ? req.body : Buffer.from(s, 'utf8');
}

/** Empty 200/404 answer for HEAD-style existence checks. */
export function exists(found: boolean): HttpResponse {
  return { status: found ? 200 : 404, headers: { 'content-type': 'text/plain; charset=UTF-8' }, body: '' };
}
