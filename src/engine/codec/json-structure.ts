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

// Every indexed document passes here: the per-depth state is reused between calls (they never nest), and keys
// are compared where they stand in the text — no string per key (a slice per key was most of this check's
// allocation on a bulk load).
let kindsScratch = new Uint8Array(MAX_JSON_DEPTH + 2);
/** Per depth, the keys of the object open there so far: start and end offsets of their text (quotes excluded). */
const keyStarts: number[][] = [];
const keyEnds: number[][] = [];
let keyCounts = new Int32Array(MAX_JSON_DEPTH + 2);
/** Per depth, the decoded keys once the object has many keys or an escaped one; null while spans suffice. */
const keySets: (Set<string> | null)[] = [];
/** Per depth, the span of the key whose value is being read (for the path of a too-deep object). */
let lastKeyStart = new Int32Array(MAX_JSON_DEPTH + 2);
let lastKeyEnd = new Int32Array(MAX_JSON_DEPTH + 2);

/**
 * The first depth or duplicate-key problem of `text` (valid JSON), or null. `maxObjectDepth` bounds objects
 * nested under the top-level one, arrays not counted (Elasticsearch's `index.mapping.depth.limit`: the object
 * field `a.b` has depth 2). Without `checkDuplicates` only depths are checked.
 */
export function jsonStructureProblem(text: string, maxDepth = MAX_JSON_DEPTH, maxObjectDepth = Infinity, checkDuplicates = true): JsonProblem | null {
  const n = text.length;
  if (kindsScratch.length < maxDepth + 2) {
    kindsScratch = new Uint8Array(maxDepth + 2);
    keyCounts = new Int32Array(maxDepth + 2);
    lastKeyStart = new Int32Array(maxDepth + 2);
    lastKeyEnd = new Int32Array(maxDepth + 2);
  }
  const kinds = kindsScratch;
  let depth = 0;
  let objectDepth = 0;
  let expectKey = false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // The closing quote is found with indexOf (a native scan: string values are most of a document's text);
      // a quote after an odd run of backslashes is escaped and skipped.
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) { j = n; break; }
        let b = q - 1;
        while (b > i && text.charCodeAt(b) === 92) b--;
        if (((q - 1 - b) & 1) === 0) { j = q; break; }
        j = q + 1;
      }
      if (expectKey) {
        // An escaped key's span is kept with a negated end: it must be decoded before it is compared.
        let escaped = false;
        for (let k = i + 1; k < j; k++) if (text.charCodeAt(k) === 92) { escaped = true; break; }
        const end = escaped ? -j : j;
        if (checkDuplicates && seenKey(text, depth, i + 1, end)) return problem(text, i, 'duplicate', keyText(text, i + 1, end));
        lastKeyStart[depth] = i + 1;
        lastKeyEnd[depth] = end;
      }
      i = j;
    } else if (c === 123 || c === 91) {
      if (++depth > maxDepth) return problem(text, i, 'depth', '');
      kinds[depth] = c === 123 ? OBJECT : ARRAY;
      if (c === 123 && ++objectDepth - 1 > maxObjectDepth) return problem(text, i, 'objectDepth', objectPath(text, kinds, depth));
      if (c === 123) {
        while (keyStarts.length <= depth) { keyStarts.push([]); keyEnds.push([]); keySets.push(null); }
        keyCounts[depth] = 0;
        keySets[depth] = null;
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

/** The key whose text is `text[start, |end|)` (an escaped one, with a negative `end`, decoded). */
function keyText(text: string, start: number, end: number): string {
  return end < 0 ? JSON.parse(text.slice(start - 1, -end + 1)) as string : text.slice(start, end);
}

/** Dotted keys leading to the object opened at `depth` (arrays on the way are transparent, as in mappings). */
function objectPath(text: string, kinds: Uint8Array, depth: number): string {
  const parts: string[] = [];
  for (let d = 1; d < depth; d++) if (kinds[d] === OBJECT) parts.push(keyText(text, lastKeyStart[d], lastKeyEnd[d]));
  return parts.join('.');
}

/** Records the key `text[start, |end|)` for the object at `depth`; true when it was already there. */
function seenKey(text: string, depth: number, start: number, end: number): boolean {
  let set = keySets[depth];
  const count = keyCounts[depth];
  if (set === null && (end < 0 || count >= LINEAR_KEYS)) {
    // Many keys, or one that needs decoding: from here on the object's keys are compared as strings.
    set = new Set<string>();
    for (let k = 0; k < count; k++) set.add(keyText(text, keyStarts[depth][k], keyEnds[depth][k]));
    keySets[depth] = set;
  }
  if (set !== null) {
    const key = keyText(text, start, end);
    if (set.has(key)) return true;
    set.add(key);
    return false;
  }
  const starts = keyStarts[depth], ends = keyEnds[depth], len = end - start;
  for (let k = 0; k < count; k++) {
    const s = starts[k];
    if (ends[k] - s !== len) continue;
    let same = true;
    for (let q = 0; q < len; q++) if (text.charCodeAt(s + q) !== text.charCodeAt(start + q)) { same = false; break; }
    if (same) return true;
  }
  starts[count] = start;
  ends[count] = end;
  keyCounts[depth] = count + 1;
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
