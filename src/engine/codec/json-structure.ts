/**
 * Structure checks JSON.parse does not make: nesting depth (deep input would overflow the stack of every
 * recursive walk after the parse) and duplicate keys in one object (JSON.parse keeps the last silently;
 * Elasticsearch's parser refuses them, `Duplicate field 'x'`). One pass over text JSON.parse has accepted.
 */

/** Jackson's `StreamReadConstraints` default: deeper documents are refused before anything recurses over them. */
export const MAX_JSON_DEPTH = 1000;

export interface JsonProblem {
  kind: 'depth' | 'duplicate' | 'objectDepth';
  /** The repeated key (duplicate), the dotted path of the too-deep object (objectDepth), or '' (depth). */
  key: string;
  /** 1-based position of the offending key or bracket, as Jackson reports token locations. */
  line: number;
  col: number;
}

const OBJECT = 1, ARRAY = 2;
/** Objects with more keys than this check duplicates with a Set instead of a scan. */
const LINEAR_KEYS = 16;

let kindsScratch = new Uint8Array(MAX_JSON_DEPTH + 2);
const keysScratch: string[][] = [];
const setsScratch: (Set<string> | null)[] = [];
/** Per depth, the object key whose value is being read (for the path of a too-deep object). */
const lastKeyScratch: string[] = [];

/**
 * The first depth or duplicate-key problem of `text` (valid JSON), or null. `maxObjectDepth` bounds objects
 * nested under the top-level one, arrays not counted (Elasticsearch's `index.mapping.depth.limit`: the object
 * field `a.b` has depth 2). Without `checkDuplicates` only depths are checked.
 */
export function jsonStructureProblem(text: string, maxDepth = MAX_JSON_DEPTH, maxObjectDepth = Infinity, checkDuplicates = true): JsonProblem | null {
  const n = text.length;
  // Every indexed document passes here: the per-depth state is reused between calls (they never nest), which
  // took the check from 4× the cost of JSON.parse on a small document to about its cost.
  if (kindsScratch.length < maxDepth + 2) kindsScratch = new Uint8Array(maxDepth + 2);
  const kinds = kindsScratch;
  const keys = keysScratch, sets = setsScratch, lastKey = lastKeyScratch;
  let depth = 0;
  let objectDepth = 0;
  let expectKey = false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      let j = i + 1;
      let escaped = false;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 92) { escaped = true; j += 2; continue; }
        if (d === 34) break;
        j++;
      }
      if (expectKey && checkDuplicates) {
        const key = escaped ? JSON.parse(text.slice(i, j + 1)) as string : text.slice(i + 1, j);
        if (seen(keys[depth], sets, depth, key)) return problem(text, i, 'duplicate', key);
        lastKey[depth] = key;
      } else if (expectKey) {
        lastKey[depth] = text.slice(i + 1, j);
      }
      i = j;
    } else if (c === 123 || c === 91) {
      if (++depth > maxDepth) return problem(text, i, 'depth', '');
      kinds[depth] = c === 123 ? OBJECT : ARRAY;
      if (c === 123 && ++objectDepth - 1 > maxObjectDepth) return problem(text, i, 'objectDepth', objectPath(kinds, lastKey, depth));
      if (c === 123) {
        if (keys.length <= depth) { keys.length = depth + 1; sets.length = depth + 1; }
        (keys[depth] ??= []).length = 0;
        sets[depth] = null;
      }
      expectKey = c === 123;
    } else if (c === 125 || c === 93) {
      if (kinds[depth] === OBJECT) objectDepth--;
      depth--;
      expectKey = false;
    } else if (c === 44) {
      expectKey = kinds[depth] === OBJECT;
    } else if (c === 58) {
      expectKey = false;
    }
  }
  return null;
}

/** Dotted keys leading to the object opened at `depth` (arrays on the way are transparent, as in mappings). */
function objectPath(kinds: Uint8Array, lastKey: string[], depth: number): string {
  const parts: string[] = [];
  for (let d = 1; d < depth; d++) if (kinds[d] === OBJECT) parts.push(lastKey[d]);
  return parts.join('.');
}

/** Records `key` for the object at `depth`; true when it was already there. */
function seen(list: string[], sets: (Set<string> | null)[], depth: number, key: string): boolean {
  const set = sets[depth];
  if (set !== null) {
    if (set.has(key)) return true;
    set.add(key);
    return false;
  }
  for (let k = 0; k < list.length; k++) if (list[k] === key) return true;
  list.push(key);
  if (list.length > LINEAR_KEYS) sets[depth] = new Set(list);
  return false;
}

function problem(text: string, at: number, kind: JsonProblem['kind'], key: string): JsonProblem {
  let line = 1, lineStart = 0;
  for (let i = 0; i < at; i++) if (text.charCodeAt(i) === 10) { line++; lineStart = i + 1; }
  return { kind, key, line, col: at - lineStart + 1 };
}

/** Jackson's wording for a problem (the reason of ES's `json_parse_exception`). */
export function jsonProblemMessage(p: JsonProblem, maxDepth = MAX_JSON_DEPTH): string {
  if (p.kind === 'objectDepth') throw new Error('objectDepth is a mapping error, not a parse error');
  const where = `\n at [Source: org.elasticsearch.common.bytes.BytesReference$MarkSupportingStreamInputWrapper; line: ${p.line}, column: ${p.col}]`;
  if (p.kind === 'duplicate') return `Duplicate field '${p.key}'${where}`;
  return `Document nesting depth (${maxDepth + 1}) exceeds the maximum allowed (${maxDepth}, from \`StreamReadConstraints.getMaxNestingDepth()\`)${where}`;
}
