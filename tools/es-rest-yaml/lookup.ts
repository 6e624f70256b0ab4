/**
 * Path lookup in a response body, as the YAML DSL spells it: `hits.hits.0._source.foo`, `\.` for a dot inside
 * a key, `''` or `$body` for the whole body, `$name` elements replaced from the stash and `_arbitrary_key_`
 * for "any one key of this object".
 */
import type { Stash } from './stash.ts';

export const MISSING = Symbol('missing');

export function splitPath(path: string): string[] {
  if (path === '' || path === '$body') return [];
  return path.replace(/\\\./g, '\u0000').split('.').map((p) => p.replace(/\u0000/g, '.'));
}

export function lookup(body: unknown, path: string, stash: Stash): unknown {
  let cur: unknown = body;
  for (let part of splitPath(path)) {
    if (part.startsWith('$')) part = String(stash.get(part.replace(/^\$\{?|\}$/g, '')));
    if (cur === null || cur === undefined || cur === MISSING || typeof cur !== 'object') return MISSING;
    if (part === '_arbitrary_key_') return Object.keys(cur as object)[0] ?? MISSING;
    if (Array.isArray(cur)) {
      const i = Number(part);
      cur = Number.isInteger(i) && i >= 0 && i < cur.length ? cur[i] : MISSING;
    } else {
      cur = Object.prototype.hasOwnProperty.call(cur, part) ? (cur as Record<string, unknown>)[part] : MISSING;
    }
  }
  return cur;
}
