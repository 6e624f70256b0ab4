/**
 * Request checks every 9200 endpoint applies: the query-parameter whitelist ("contains unrecognized
 * parameter" with ES's Levenshtein suggestions) and the Content-Type check (406 with a flat body).
 */
import { illegalArgument } from '../../engine/documents/doc-errors.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import { JSON_HEADERS } from './errors.ts';

const GLOBAL = ['pretty', 'human', 'error_trace', 'filter_path', 'format', 'source', 'source_content_type'];

/** Lucene's LevenshteinDistance.getDistance: 1 - distance / max length. */
function similarity(a: string, b: string): number {
  const n = a.length, m = b.length;
  if (n === 0 || m === 0) return n === m ? 1 : 0;
  let prev = Array.from({ length: n + 1 }, (_, i) => i);
  for (let j = 1; j <= m; j++) {
    const cur = [j];
    for (let i = 1; i <= n; i++) cur[i] = Math.min(cur[i - 1] + 1, prev[i] + 1, prev[i - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return 1 - prev[n] / Math.max(n, m);
}

/** Throws ES's unrecognized-parameter error when the query holds a name outside `allowed` and the globals. */
export function checkParams(req: HttpRequest, allowed: readonly string[]): void {
  if (req.rawQuery === '') return;
  const bad: string[] = [];
  for (const k of req.query.keys()) if (!GLOBAL.includes(k) && !allowed.includes(k) && !bad.includes(k)) bad.push(k);
  if (bad.length === 0) return;
  throw unrecognized(req, bad, [...GLOBAL, ...allowed], 'parameter');
}

/**
 * ES's BaseRestHandler.unrecognized: `request [path] contains unrecognized <what>(s): [x] -> did you mean [y]?`,
 * suggesting the candidates more than half similar to each bad name.
 */
export function unrecognized(req: HttpRequest, bad: readonly string[], candidates: readonly string[], what: string): Error {
  const ok = new Set(candidates);
  const parts = bad.map((b) => {
    const scored = [...ok].map((c) => [similarity(b, c), c] as [number, string]).filter(([s]) => s > 0.5)
      .sort((x, y) => y[0] - x[0] || (x[1] < y[1] ? -1 : 1)).map(([, c]) => c);
    if (scored.length === 0) return `[${b}]`;
    return `[${b}] -> did you mean ${scored.length === 1 ? `[${scored[0]}]` : `any of [${scored.join(', ')}]`}?`;
  });
  return illegalArgument(`request [${req.path}] contains unrecognized ${what}${bad.length > 1 ? 's' : ''}: ${parts.join(', ')}`);
}

const SUPPORTED = new Set(['application/json', 'application/x-ndjson', 'application/smile', 'application/yaml', 'application/cbor']);

/** The 406 answer for a body with an unsupported or missing Content-Type, or null when acceptable. */
export function contentTypeProblem(req: HttpRequest): HttpResponse | null {
  if (req.body.length === 0) return null;
  const ct = req.headers['content-type'];
  if (ct === undefined) return flat406('Content-Type header is missing');
  const mime = ct.split(';')[0].trim().toLowerCase();
  if (SUPPORTED.has(mime)) return null;
  return flat406(`Content-Type header [${ct}] is not supported`);
}

function flat406(msg: string): HttpResponse {
  return { status: 406, headers: JSON_HEADERS, body: JSON.stringify({ error: msg, status: 406 }) };
}

export const boolParam = (req: HttpRequest, name: string, def = false): boolean => {
  const v = req.query.get(name);
  if (v === null) return def;
  return v === '' || v === 'true';
};

/** `?x=a,b` as a list (undefined when absent). */
export const listParam = (req: HttpRequest, name: string): string[] | undefined => {
  const v = req.query.get(name);
  return v === null ? undefined : v.split(',').map((s) => s.trim()).filter(Boolean);
};

export const intParam = (req: HttpRequest, name: string): number | undefined => {
  const v = req.query.get(name);
  if (v === null) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw illegalArgument(`Failed to parse int parameter [${name}] with value [${v}]`);
  return n;
};
