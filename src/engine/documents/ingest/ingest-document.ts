/**
 * The document an ingest pipeline works on, as Elasticsearch's IngestDocument: the source map plus the
 * metadata fields (`_index`, `_type`, `_id`, `_routing`, `_version`, `_version_type`) and `_ingest`
 * (`timestamp`). Field paths are dotted (`a.b.c`); `_source.a` names the source field `a`; a metadata name
 * names the metadata field; `_ingest.x` the ingest metadata.
 */
import { illegalArgument } from '../doc-errors.ts';

export const METADATA_FIELDS = ['_index', '_type', '_id', '_routing', '_version', '_version_type'] as const;

export class IngestDocument {
  readonly meta: Record<string, unknown>;
  readonly ingest: Record<string, unknown>;

  constructor(public source: Record<string, unknown>, meta: Record<string, unknown>, nowMs: number) {
    this.meta = { ...meta };
    this.ingest = { timestamp: new Date(nowMs).toISOString() };
  }

  /** The container and key a path resolves to (creating intermediate objects when `create`). */
  private locate(path: string, create: boolean): { obj: Record<string, unknown> | unknown[]; key: string } | null {
    if (path === '') throw illegalArgument('path cannot be null nor empty');
    if ((METADATA_FIELDS as readonly string[]).includes(path)) return { obj: this.meta, key: path };
    let root: Record<string, unknown> = this.source;
    let rest = path;
    if (path.startsWith('_ingest.')) { root = this.ingest; rest = path.slice(8); }
    else if (path.startsWith('_source.')) rest = path.slice(8);
    const parts = rest.split('.');
    let cur: unknown = root;
    for (let i = 0; i < parts.length - 1; i++) {
      const k = parts[i];
      if (Array.isArray(cur)) {
        const n = Number(k);
        if (!Number.isInteger(n) || n < 0 || n >= cur.length) return null;
        cur = cur[n];
        continue;
      }
      const o = cur as Record<string, unknown>;
      if (o[k] === undefined || o[k] === null) {
        if (!create) return null;
        o[k] = {};
      } else if (typeof o[k] !== 'object') {
        if (!create) return null;
        throw illegalArgument(`cannot set [${parts[i + 1]}] with parent object of type [${javaType(o[k])}] as part of path [${path}]`);
      }
      cur = o[k];
    }
    if (typeof cur !== 'object' || cur === null) return null;
    return { obj: cur as Record<string, unknown>, key: parts[parts.length - 1] };
  }

  has(path: string): boolean {
    const at = this.locate(path, false);
    if (!at) return false;
    return Array.isArray(at.obj) ? Number(at.key) < at.obj.length : Object.prototype.hasOwnProperty.call(at.obj, at.key);
  }

  /** The value at `path`; missing → error (as ES) unless `optional`, then undefined. */
  get(path: string, optional = false): unknown {
    const at = this.locate(path, false);
    const v = at === null ? undefined : Array.isArray(at.obj) ? at.obj[Number(at.key)] : at.obj[at.key];
    if (v === undefined && !optional) throw illegalArgument(`field [${path.split('.').pop()}] not present as part of path [${path}]`);
    return v;
  }

  set(path: string, value: unknown): void {
    const at = this.locate(path, true)!;
    if (Array.isArray(at.obj)) at.obj[Number(at.key)] = value; else at.obj[at.key] = value;
  }

  remove(path: string): void {
    const at = this.locate(path, false);
    if (!at || !this.has(path)) throw illegalArgument(`field [${path.split('.').pop()}] not present as part of path [${path}]`);
    if (Array.isArray(at.obj)) at.obj.splice(Number(at.key), 1); else delete at.obj[at.key];
  }

  /** `{{field}}` and `{{{field}}}` templates filled from the document (Mustache, as ES's processors accept). */
  render(template: string): string {
    return template.replace(/\{\{\{?\s*([^}\s]+)\s*\}?\}\}/g, (_m, p: string) => {
      const v = this.get(p, true);
      return v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    });
  }

  /** The context an `if` script or a script processor sees: the source with the metadata fields on it. */
  scriptContext(): Record<string, unknown> {
    const ctx: Record<string, unknown> = this.source;
    for (const k of METADATA_FIELDS) if (this.meta[k] !== undefined) ctx[k] = this.meta[k];
    ctx._ingest = this.ingest;
    return ctx;
  }

  /** Moves metadata a script changed on the context back, and takes the metadata keys out of the source. */
  absorbScriptContext(ctx: Record<string, unknown>): void {
    for (const k of METADATA_FIELDS) if (k in ctx) { this.meta[k] = ctx[k]; delete ctx[k]; }
    delete ctx._ingest;
    this.source = ctx;
  }
}

export function javaType(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return 'java.lang.String';
  if (typeof v === 'boolean') return 'java.lang.Boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'java.lang.Integer' : 'java.lang.Double';
  if (Array.isArray(v)) return 'java.util.ArrayList';
  return 'java.util.LinkedHashMap';
}
