/**
 * JSON output of port 9200: compact by default, ES's pretty layout with `?pretty` (`"key" : value`,
 * 2-space indent, one array element per line, `{ }`/`[ ]` when empty, trailing newline). Stored `_source`
 * travels as `RawJson` and is copied byte for byte in compact output; pretty output re-parses it losslessly.
 */
import { isLosslessNumber, parse as losslessParse } from '../../engine/codec/lossless-json.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import { JavaDouble, javaDouble } from '../../engine/documents/source.ts';
import { applyFilterPath } from './filter-path.ts';
import { JSON_HEADERS } from './errors.ts';

/** A JSON text inserted verbatim. */
export class RawJson {
  constructor(readonly text: string) {}
}

export function compact(v: unknown): string {
  if (v instanceof RawJson) return v.text;
  if (v instanceof JavaDouble) return javaDouble(v.v);
  if (v === null || v === undefined) return 'null';
  if (typeof v !== 'object') return JSON.stringify(v);
  if (isLosslessNumber(v)) return v.value;
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) s += (i ? ',' : '') + compact(v[i]);
    return `${s}]`;
  }
  let s = '{';
  let first = true;
  for (const k in v as Record<string, unknown>) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined) continue;
    s += `${first ? '' : ','}${JSON.stringify(k)}:${compact(x)}`;
    first = false;
  }
  return `${s}}`;
}

export function pretty(v: unknown, indent = ''): string {
  if (v instanceof RawJson) return pretty(losslessParse(v.text), indent);
  if (v instanceof JavaDouble) return javaDouble(v.v);
  if (v === null || v === undefined) return 'null';
  if (typeof v !== 'object') return JSON.stringify(v);
  if (isLosslessNumber(v)) return v.value;
  const inner = `${indent}  `;
  if (Array.isArray(v)) {
    if (v.length === 0) return '[ ]';
    return `[\n${v.map((x) => inner + pretty(x, inner)).join(',\n')}\n${indent}]`;
  }
  const keys = Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined);
  if (keys.length === 0) return '{ }';
  return `{\n${keys.map((k) => `${inner}${JSON.stringify(k)} : ${pretty((v as Record<string, unknown>)[k], inner)}`).join(',\n')}\n${indent}}`;
}

export function wantsPretty(req: HttpRequest): boolean {
  const p = req.query.get('pretty');
  return p !== null && p !== 'false';
}

/** A JSON response honouring `?pretty`. */
export function json(req: HttpRequest, status: number, body: unknown, headers?: Record<string, string>): HttpResponse {
  const fp = req.query.get('filter_path');
  if (fp) body = applyFilterPath(body, fp);
  const text = wantsPretty(req) ? `${pretty(body)}\n` : compact(body);
  return { status, headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS, body: text };
}
