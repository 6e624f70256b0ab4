/**
 * The `_update` API's document logic: body validation, `doc` merge with noop detection, upserts, and
 * scripts (with `ctx.op`). Works on lossless value trees so untouched numbers keep their spelling.
 */
import { jsonProblemMessage, jsonStructureProblem, MAX_JSON_DEPTH } from '../codec/json-structure.ts';

/**
 * `doc`/`upsert` sit one object below the body, and their fields may nest as deep as a document's (ES's
 * mapping depth limit, 20); deeper bodies would overflow the recursive merge and mapping walks.
 */
const UPDATE_OBJECT_DEPTH = 21;
import { docError, illegalArgument, validationFailed } from './doc-errors.ts';
import { runScript, type ScriptSpec } from './painless.ts';
import { deepEqualLossless, isPlainObject, mergeDoc, parseLossless, stringifyLossless } from './source.ts';

const BODY_KEYS = new Set(['doc', 'upsert', 'doc_as_upsert', 'scripted_upsert', 'detect_noop', 'script', '_source', 'fields', 'lang']);

export interface UpdateRequest {
  doc?: Record<string, unknown>;
  upsert?: Record<string, unknown>;
  docAsUpsert: boolean;
  scriptedUpsert: boolean;
  detectNoop: boolean;
  script?: ScriptSpec;
  /** `_source` from the body (true, false, a list or {includes, excludes}). */
  source?: unknown;
}

/** Parses and validates an `_update` body (JSON text). */
export function parseUpdateBody(text: string): UpdateRequest {
  let b: unknown;
  try {
    // Checked first: the lossless parser recurses, so deep nesting would overflow its stack.
    JSON.parse(text);
    const problem = jsonStructureProblem(text, MAX_JSON_DEPTH, UPDATE_OBJECT_DEPTH);
    if (problem?.kind === 'objectDepth') throw new Error(`object field [${problem.key}] nested too deeply`);
    if (problem !== null) throw new Error(jsonProblemMessage(problem));
    b = parseLossless(text);
  } catch (e) {
    throw docError('DOC_PARSE', ['Failed to parse content to map'], { cause: { code: 'DOC_JSON_PARSE', message: (e as Error).message, details: {} } });
  }
  if (!isPlainObject(b)) throw validationFailed(['script or doc is missing']);
  for (const k of Object.keys(b)) if (!BODY_KEYS.has(k)) throw illegalArgument(`[UpdateRequest] unknown field [${k}], parser not found`);
  const req: UpdateRequest = {
    docAsUpsert: bool(b.doc_as_upsert), scriptedUpsert: bool(b.scripted_upsert),
    detectNoop: b.detect_noop === undefined ? true : bool(b.detect_noop), source: b._source,
  };
  if (b.doc !== undefined) { if (!isPlainObject(b.doc)) throw illegalArgument('[UpdateRequest] failed to parse field [doc]'); req.doc = b.doc; }
  if (b.upsert !== undefined) { if (!isPlainObject(b.upsert)) throw illegalArgument('[UpdateRequest] failed to parse field [upsert]'); req.upsert = b.upsert; }
  if (b.script !== undefined) req.script = parseScriptSpec(b.script);
  const fails: string[] = [];
  if (req.doc && req.script) fails.push("can't provide both script and doc");
  else if (!req.doc && !req.script) fails.push('script or doc is missing');
  if (req.docAsUpsert && req.upsert && req.doc) fails.push("can't provide both upsert request and doc_as_upsert");
  if (fails.length) throw validationFailed(fails);
  return req;
}

const bool = (v: unknown): boolean => v === true || v === 'true';

/** An inline painless script from a request body (`script` as a string or `{source|inline, params, lang}`). */
export function parseScriptSpec(s: unknown): ScriptSpec {
  if (typeof s === 'string') return { source: s, params: {}, lang: 'painless' };
  if (!isPlainObject(s)) throw illegalArgument('[script] failed to parse field [script]');
  if (s.id !== undefined) throw docError('DOC_ILLEGAL_ARGUMENT', [`unable to find script [${String(s.id)}] in cluster state`]);
  const src = s.source ?? s.inline;
  if (typeof src !== 'string') throw illegalArgument('must specify either [source] for an inline script or [id] for a stored script');
  const lang = s.lang === undefined ? 'painless' : String(s.lang);
  if (lang !== 'painless') throw illegalArgument(`script_lang not supported [${lang}]`);
  const params = s.params === undefined ? {} : s.params;
  if (!isPlainObject(params)) throw illegalArgument('[script] params must be an object');
  return { source: src, params: params as Record<string, unknown>, lang };
}

export type UpdateOutcome =
  | { kind: 'index'; source: string; created: boolean }
  | { kind: 'noop' }
  | { kind: 'delete' };

export interface ExistingDoc {
  source: Uint8Array;
  version: number;
  routing?: string;
}

export interface UpdateCtx { index: string; type: string; id: string; now: number }

/**
 * Decides what an update does to `existing` (null when missing). Throws `document_missing_exception`
 * (via `onMissing`) when there is nothing to update and no upsert.
 */
export function computeUpdate(req: UpdateRequest, existing: ExistingDoc | null, c: UpdateCtx, onMissing: () => Error): UpdateOutcome {
  if (!existing) {
    if (req.docAsUpsert && req.doc) return { kind: 'index', source: stringifyLossless(req.doc), created: true };
    if (!req.upsert) throw onMissing();
    if (req.script && req.scriptedUpsert) return scripted(req, structuredCloneLossless(req.upsert), null, c, true);
    return { kind: 'index', source: stringifyLossless(req.upsert), created: true };
  }
  const old = parseLossless(Buffer.from(existing.source).toString('utf8')) as Record<string, unknown>;
  if (req.doc) {
    const merged = mergeDoc(old, req.doc);
    if (req.detectNoop && deepEqualLossless(old, merged)) return { kind: 'noop' };
    return { kind: 'index', source: stringifyLossless(merged), created: false };
  }
  return scripted(req, old, existing, c, false);
}

function scripted(req: UpdateRequest, source: Record<string, unknown>, existing: ExistingDoc | null, c: UpdateCtx, created: boolean): UpdateOutcome {
  const ctx: Record<string, unknown> = {
    _source: source, _index: c.index, _type: c.type, _id: c.id, _version: existing?.version ?? -1,
    _routing: existing?.routing ?? null, _now: c.now, op: created ? 'create' : 'index',
  };
  runScript(req.script!, ctx);
  const op = String(ctx.op);
  if (op === 'none' || op === 'noop') return { kind: 'noop' };
  if (op === 'delete') return created ? { kind: 'noop' } : { kind: 'delete' };
  if (!isPlainObject(ctx._source)) throw illegalArgument('ctx._source must be a map');
  return { kind: 'index', source: stringifyLossless(ctx._source), created };
}

function structuredCloneLossless(v: Record<string, unknown>): Record<string, unknown> {
  return parseLossless(stringifyLossless(v)) as Record<string, unknown>;
}
