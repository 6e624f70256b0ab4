/**
 * Helpers shared by the prometheus.yml section parsers (`config.ts`, `http-client-config.ts`,
 * `sd-config.ts`, `remote-config.ts`): strict field checks and scalar conversions that fail with the
 * messages Prometheus's YAML unmarshalling gives, and path resolution against the config file's directory.
 */
import { isAbsolute, join } from 'node:path';
import { InvalidArgumentError } from '../errors.ts';
import { parseDurationMs } from '../model/duration.ts';
import { parseBase2Bytes } from '../model/bytes.ts';

export type Obj = Record<string, unknown>;

export const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function bad(msg: string): never { throw new InvalidArgumentError('INVALID_ARGUMENT', msg); }

/** Refuses fields the Go struct `type` does not have (Prometheus unmarshals strictly). */
export function checkFields(o: Obj, allowed: readonly string[], type: string): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) bad(`yaml: unmarshal errors:\n  field ${k} not found in type ${type}`);
}

export function asObj(v: unknown, what: string): Obj {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) bad(`${what} must be a mapping`);
  return v as Obj;
}

export function asList(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) bad(`${what} must be a list`);
  return v;
}

export function str(v: unknown, def = ''): string {
  return v === undefined || v === null ? def : String(v);
}

export function dur(v: unknown, def: number): number {
  if (v === undefined || v === null) return def;
  return parseDurationMs(String(v));
}

export function bool(v: unknown, def: boolean, what: string): boolean {
  if (v === undefined || v === null) return def;
  if (typeof v !== 'boolean') bad(`yaml: unmarshal errors:\n  cannot unmarshal !!${typeof v === 'number' ? 'int' : 'str'} \`${String(v)}\` into bool (${what})`);
  return v;
}

/** A non-negative integer field (Go `uint`/`int` limits and counts). */
export function uint(v: unknown, def: number, what: string): number {
  if (v === undefined || v === null) return def;
  const n = Number(v);
  if (typeof v === 'boolean' || !Number.isInteger(n) || n < 0) bad(`yaml: unmarshal errors:\n  cannot unmarshal ${JSON.stringify(v)} into uint (${what})`);
  return n;
}

/** A `<size>` field such as `body_size_limit: 10MB` (base 1024). */
export function size(v: unknown, what: string): number {
  if (v === undefined || v === null) return 0;
  const n = parseBase2Bytes(String(v));
  if (n === null) bad(`${what}: units: unknown unit in ${String(v)}`);
  return n;
}

/** A `{name: value}` map of label names, validated as Prometheus's `model.LabelSet`. */
export function labelMap(v: unknown, what: string): Record<string, string> {
  const o = asObj(v, what);
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(o)) {
    if (!LABEL_NAME_RE.test(k)) bad(`"${k}" is not a valid label name`);
    out[k] = val === null || val === undefined ? '' : String(val);
  }
  return out;
}

/** `{string: string}` maps such as `headers` and `endpoint_params`. */
export function stringMap(v: unknown, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(asObj(v, what))) out[k] = str(val);
  return out;
}

export function resolvePath(dir: string, p: string): string {
  return p === '' || isAbsolute(p) ? p : join(dir, p);
}

/** Drops `undefined` entries so the marshalled YAML omits them (Go's `omitempty`). */
export function compact(o: Obj): Obj {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}
