/**
 * Name rules and generated identifiers of Elasticsearch 6.x: index/alias name validation in ES's order,
 * type names, 22-char index UUIDs and 20-char time-based document ids (URL-safe base64, no padding).
 */
import { randomBytes } from 'node:crypto';
import { docError } from './doc-errors.ts';

/** ES renders this set with Java's HashSet order; the reason text must match it byte for byte. */
const INVALID_CHARS_TEXT = '[ , ", *, \\, <, |, ,, >, /, ?]';
const INVALID_CHARS = /[\\/*?"<>| ,]/;

/** The reason an index or alias name is invalid, or null (steps 1–6 of ES's validation). */
export function nameProblem(name: string): string | null {
  if (INVALID_CHARS.test(name)) return `must not contain the following characters ${INVALID_CHARS_TEXT}`;
  if (name.includes('#')) return "must not contain '#'";
  if (/^[_\-+]/.test(name)) return "must not start with '_', '-', or '+'";
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > 255) return `index name is too long, (${bytes} > 255)`;
  if (name === '.' || name === '..') return "must not be '.' or '..'";
  return null;
}

/** Throws `invalid_index_name_exception` unless `name` can name a new index. */
export function validateIndexName(name: string): void {
  let why = nameProblem(name);
  if (!why && name.toLowerCase() !== name) why = 'must be lowercase';
  if (why) throw docError('DOC_INVALID_INDEX_NAME', [name, why], { index_uuid: '_na_', index: name });
}

/** Throws `invalid_alias_name_exception` unless `name` can name an alias. */
export function validateAliasName(name: string): void {
  const why = nameProblem(name);
  if (why) throw docError('DOC_INVALID_ALIAS_NAME', [name, why], { index_uuid: '_na_', index: name });
}

/** Throws `invalid_type_name_exception` for `_`-prefixed type names other than `_doc`. */
export function validateTypeName(type: string): void {
  if (type.startsWith('_') && type !== '_doc') {
    throw docError('DOC_INVALID_TYPE_NAME', [`mapping type name [${type}] can't start with '_' unless it is called [_doc]`]);
  }
}

const b64url = (b: Buffer): string => b.toString('base64url');

/** A random 22-char index UUID (16 random bytes). */
export function newIndexUuid(): string {
  return b64url(randomBytes(16));
}

let lastMs = 0;
let seq = randomBytes(3).readUIntBE(0, 3);
const node = randomBytes(6);

/**
 * A 20-char id like ES's TimeBasedUUIDGenerator: 15 bytes of sequence, timestamp and node bytes, ordered
 * so ids made close in time share prefixes (good for term dictionaries).
 */
export function newDocId(nowMs = Date.now()): string {
  seq = (seq + 1) & 0xffffff;
  const ms = Math.max(nowMs, lastMs);
  lastMs = ms;
  const b = Buffer.allocUnsafe(15);
  b[0] = seq & 0xff;
  b[1] = (seq >>> 16) & 0xff;
  b.writeUIntBE(ms, 2, 6);
  b[8] = (seq >>> 8) & 0xff;
  node.copy(b, 9);
  return b64url(b);
}
