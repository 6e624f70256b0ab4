/**
 * `_bulk` NDJSON parsing with ES 6.8's failure rules: framing problems (no final newline, a malformed or
 * unknown action line, unknown metadata, no index/type) fail the whole request; everything about one item's
 * content (bad JSON source, mapping errors, versions) fails only that item, later, in its shard.
 * Sources stay as the client's bytes (subarrays of the body).
 */
import { docError, illegalArgument, validationFailed } from './doc-errors.ts';
import type { VersionType } from './doc-shard-types.ts';

export type BulkActionName = 'index' | 'create' | 'update' | 'delete';

export interface BulkItem {
  action: BulkActionName;
  index: string;
  type: string;
  id?: string;
  routing?: string;
  version?: number;
  versionType?: VersionType;
  ifSeqNo?: number;
  ifPrimaryTerm?: number;
  retryOnConflict?: number;
  /** The ingest pipeline the item names. */
  pipeline?: string;
  /** index/create: the source bytes; update: the update body. */
  source?: Uint8Array;
  fetchSource?: unknown;
}

const ACTIONS = new Set(['index', 'create', 'update', 'delete']);
const META_KEYS = new Set(['_index', '_type', '_id', 'routing', '_routing', 'version', '_version', 'version_type', '_version_type',
  'retry_on_conflict', '_retry_on_conflict', 'if_seq_no', 'if_primary_term', 'pipeline', '_source', 'parent', '_parent', 'op_type', 'fields']);
const NL = 10;

export function parseBulk(body: Uint8Array, defaults: { index?: string; type?: string }): BulkItem[] {
  if (body.length === 0) throw validationFailed(['no requests added']);
  if (body[body.length - 1] !== NL) throw illegalArgument('The bulk request must be terminated by a newline [\\n]');
  const items: BulkItem[] = [];
  const missing: string[] = [];
  let pos = 0;
  let line = 0;
  // One Buffer over the body decodes every action line: a Buffer made per line cost ~0.13 µs of a ~0.65 µs item.
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  while (pos < body.length) {
    const end = body.indexOf(NL, pos);
    const text = buf.toString('utf8', pos, end);
    line++;
    pos = end + 1;
    if (text.trim() === '') continue;
    const item = parseAction(text, line, defaults);
    if (item.action !== 'delete') {
      if (pos >= body.length) break; // an action without its source line is dropped, as ES does
      const srcEnd = body.indexOf(NL, pos);
      item.source = body.subarray(pos, srcEnd);
      pos = srcEnd + 1;
      line++;
    }
    if (!item.index) missing.push('index is missing');
    if (!item.type) missing.push('type is missing');
    items.push(item);
  }
  if (items.length === 0) throw validationFailed(['no requests added']);
  if (missing.length) throw validationFailed(missing);
  return items;
}

// Module-level, not closures in parseAction: a closure per action line costs its allocation (and tsx's name
// helper) on the bulk hot path.
function str(a: unknown, b?: unknown): string | undefined { const v = a ?? b; return v === undefined || v === null ? undefined : String(v); }
function num(a: unknown, b?: unknown): number | undefined { const v = a ?? b; return v === undefined || v === null ? undefined : Number(v); }

function parseAction(text: string, line: number, defaults: { index?: string; type?: string }): BulkItem {
  return simpleBulkItem(text, defaults) ?? jsonAction(text, line, defaults);
}

/** The action line through `JSON.parse`, with ES's errors for each way it can be wrong. */
export function jsonAction(text: string, line: number, defaults: { index?: string; type?: string }): BulkItem {
  let v: unknown;
  try { v = JSON.parse(text); } catch (e) {
    // A client error (ES answers 400), raised before any item of the request has run.
    throw docError('DOC_BULK_JSON_PARSE', [`Malformed action/metadata line [${line}]: ${(e as Error).message}`]);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw illegalArgument(`Malformed action/metadata line [${line}], expected START_OBJECT or the end of the stream`);
  }
  const keys = Object.keys(v);
  if (keys.length === 0) throw illegalArgument(`Malformed action/metadata line [${line}], expected FIELD_NAME but found [END_OBJECT]`);
  const action = keys[0];
  if (!ACTIONS.has(action)) {
    throw illegalArgument(`Malformed action/metadata line [${line}], expected one of [create, delete, index, update] but found [${action}]`);
  }
  const meta = (v as Record<string, unknown>)[action];
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    throw illegalArgument(`Malformed action/metadata line [${line}], expected START_OBJECT but found [${meta === null ? 'VALUE_NULL' : 'VALUE_STRING'}]`);
  }
  const m = meta as Record<string, unknown>;
  for (const k of Object.keys(m)) {
    if (!META_KEYS.has(k)) throw illegalArgument(`Action/metadata line [${line}] contains an unknown parameter [${k}]`);
  }
  const item: BulkItem = {
    action: action as BulkActionName,
    index: str(m._index) ?? defaults.index ?? '',
    type: str(m._type) ?? defaults.type ?? '',
    id: str(m._id),
    routing: str(m.routing, m._routing),
    version: num(m.version, m._version),
    versionType: str(m.version_type, m._version_type) as VersionType | undefined,
    ifSeqNo: num(m.if_seq_no),
    ifPrimaryTerm: num(m.if_primary_term),
    retryOnConflict: num(m.retry_on_conflict, m._retry_on_conflict),
    pipeline: str(m.pipeline),
  };
  if (m._source !== undefined) item.fetchSource = m._source;
  return item;
}

const QUOTE = 34, BACKSLASH = 92, COMMA = 44, COLON = 58, OPEN = 123, CLOSE = 125, MINUS = 45, ZERO = 48, NINE = 57;

/**
 * The item of a common action line — `{"<action>":{"<key>":<value>,…}}` with no whitespace, keys among the
 * usual metadata (`_index`, `_type`, `_id`, routing, versions, `retry_on_conflict`, `pipeline`), string values
 * without escapes or control characters, integer values — scanned straight into the item, or null for anything
 * else (which then takes `jsonAction`, giving the same item or its error). A bulk load's action lines (clients
 * write them this way) skip the general parser and the object it builds, whose keys stored by name were a
 * quarter of parsing a bulk item; its `_id`s are not interned as `JSON.parse` interns short strings.
 */
export function simpleBulkItem(text: string, defaults: { index?: string; type?: string }): BulkItem | null {
  const n = text.length;
  if (n < 7 || text.charCodeAt(0) !== OPEN || text.charCodeAt(1) !== QUOTE) return null;
  const nameEnd = plainStringEnd(text, 2);
  if (nameEnd < 0) return null;
  const action = nameEnd === 7 && text.startsWith('index', 2) ? 'index' : nameEnd === 8 && text.startsWith('create', 2) ? 'create'
    : nameEnd === 8 && text.startsWith('update', 2) ? 'update' : nameEnd === 8 && text.startsWith('delete', 2) ? 'delete' : null;
  if (action === null) return null;
  let i = nameEnd + 1;
  if (text.charCodeAt(i) !== COLON || text.charCodeAt(i + 1) !== OPEN) return null;
  i += 2;
  // Both spellings are kept apart: the unprefixed one wins whatever their order, as in `jsonAction`.
  let index: Meta, type: Meta, id: Meta, routing: Meta, routing_: Meta, version: Meta, version_: Meta, versionType: Meta,
    versionType_: Meta, ifSeqNo: Meta, ifPrimaryTerm: Meta, retry: Meta, retry_: Meta, pipeline: Meta;
  if (text.charCodeAt(i) !== CLOSE) {
    for (;;) {
      if (text.charCodeAt(i) !== QUOTE) return null;
      const keyStart = i + 1;
      const keyEnd = plainStringEnd(text, keyStart);
      if (keyEnd < 0) return null;
      i = keyEnd + 1;
      if (text.charCodeAt(i) !== COLON) return null;
      i++;
      const c = text.charCodeAt(i);
      let value: string | number;
      if (c === QUOTE) {
        const end = plainStringEnd(text, i + 1);
        if (end < 0) return null;
        value = text.slice(i + 1, end);
        i = end + 1;
      } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
        const start = i;
        if (c === MINUS) i++;
        const first = text.charCodeAt(i);
        if (!(first >= ZERO && first <= NINE)) return null;
        i++;
        if (first !== ZERO) while (i < n && text.charCodeAt(i) >= ZERO && text.charCodeAt(i) <= NINE) i++;
        if (i - start > 15) return null; // beyond exact doubles' digits: JSON.parse's rounding decides
        value = Number(text.slice(start, i));
      } else {
        return null;
      }
      // A repeated key: the last one counts, as with JSON.parse.
      const len = keyEnd - keyStart;
      if (keyIs(text, keyStart, len, '_id')) id = value;
      else if (keyIs(text, keyStart, len, '_index')) index = value;
      else if (keyIs(text, keyStart, len, '_type')) type = value;
      else if (keyIs(text, keyStart, len, 'routing')) routing = value;
      else if (keyIs(text, keyStart, len, '_routing')) routing_ = value;
      else if (keyIs(text, keyStart, len, 'version')) version = value;
      else if (keyIs(text, keyStart, len, '_version')) version_ = value;
      else if (keyIs(text, keyStart, len, 'version_type')) versionType = value;
      else if (keyIs(text, keyStart, len, '_version_type')) versionType_ = value;
      else if (keyIs(text, keyStart, len, 'if_seq_no')) ifSeqNo = value;
      else if (keyIs(text, keyStart, len, 'if_primary_term')) ifPrimaryTerm = value;
      else if (keyIs(text, keyStart, len, 'retry_on_conflict')) retry = value;
      else if (keyIs(text, keyStart, len, '_retry_on_conflict')) retry_ = value;
      else if (keyIs(text, keyStart, len, 'pipeline')) pipeline = value;
      else return null;
      const d = text.charCodeAt(i);
      if (d === COMMA) { i++; continue; }
      if (d === CLOSE) break;
      return null;
    }
  }
  if (i + 2 !== n || text.charCodeAt(i + 1) !== CLOSE) return null;
  return {
    action,
    index: str(index) ?? defaults.index ?? '',
    type: str(type) ?? defaults.type ?? '',
    id: str(id),
    routing: str(routing, routing_),
    version: num(version, version_),
    versionType: str(versionType, versionType_) as VersionType | undefined,
    ifSeqNo: num(ifSeqNo),
    ifPrimaryTerm: num(ifPrimaryTerm),
    retryOnConflict: num(retry, retry_),
    pipeline: str(pipeline),
  };
}

type Meta = string | number | undefined;

function keyIs(text: string, start: number, len: number, name: string): boolean {
  return len === name.length && text.startsWith(name, start);
}

/** The index of the quote closing a string whose text starts at `i`, or −1 if it has an escape or a control character. */
function plainStringEnd(text: string, i: number): number {
  for (let n = text.length; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i;
    if (c === BACKSLASH || c < 0x20) return -1;
  }
  return -1;
}
