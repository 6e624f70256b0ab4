/**
 * Turns a `do` section's API call (`mget` with params {index, type, id, body, ...}) into an HTTP request.
 *
 * The upstream rest-api-spec `api/*.json` files are the source: both the 6.x shape (`methods` beside
 * `url: {paths: [...], parts, params}`) and the 7.x+ shape (`url.paths: [{path, methods, parts}]`) are read.
 * As in ES's own runner, the path chosen is the one with the most parts that the call supplies, and a
 * parameter the spec does not know is an error (what `catch: param` expects). An API with no spec file in
 * the directory goes through the official 6.8 JavaScript client (a dev dependency), which is generated from
 * the 6.8 specs: its request is captured, never sent.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

export interface HttpCall { method: string; path: string; query: Record<string, string>; body: string | undefined; ndjson: boolean }

/** A parameter the API does not accept: the DSL's `catch: param`. */
export class ParamError extends Error {}

interface SpecPath { path: string; methods: string[]; parts: string[] }
interface Spec { paths: SpecPath[]; params: Set<string>; bulkBody: boolean }

// Parameters every API takes (_common.json), whether or not a spec lists them.
const COMMON = new Set(['pretty', 'human', 'error_trace', 'source', 'filter_path', 'ignore']);
const NDJSON_APIS = new Set(['bulk', 'msearch', 'msearch_template']);

export class ApiResolver {
  private readonly specs = new Map<string, Spec>();
  private client: any = null;
  readonly fromClient = new Set<string>();

  constructor(apiDir: string | null) {
    if (!apiDir) return;
    for (const f of readdirSync(apiDir).filter((n) => n.endsWith('.json') && !n.startsWith('_'))) {
      const doc = JSON.parse(readFileSync(join(apiDir, f), 'utf8')) as Record<string, any>;
      for (const [name, def] of Object.entries(doc)) this.specs.set(name, parseSpec(def));
    }
  }

  get specCount(): number { return this.specs.size; }

  async resolve(api: string, rawParams: Record<string, unknown>): Promise<HttpCall> {
    const spec = this.specs.get(api);
    if (spec) return resolveFromSpec(api, spec, rawParams);
    this.fromClient.add(api);
    return this.resolveFromClient(api, rawParams);
  }

  private async resolveFromClient(api: string, params: Record<string, unknown>): Promise<HttpCall> {
    if (!this.client) {
      const require = createRequire(import.meta.url);
      const { Client, Transport } = require('@elastic/elasticsearch');
      this.client = new Client({ node: 'http://127.0.0.1:1', Transport: recordingTransport(Transport) });
    }
    let fn: any = this.client;
    for (const part of api.split('.')) fn = fn?.[part];
    if (typeof fn !== 'function') throw new Error(`unknown API [${api}]`);
    const { body, ...rest } = params;
    const captured = await captureClientRequest(this.client, fn, { ...rest, ...(body !== undefined ? bodyParam(api, body) : {}) });
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(captured.querystring ?? {})) query[k] = paramString(v);
    const ndjson = captured.bulkBody !== undefined;
    const payload = ndjson ? toNdjson(captured.bulkBody) : serialiseBody(captured.body);
    return { method: captured.method, path: captured.path, query, body: payload, ndjson };
  }
}

function bodyParam(api: string, body: unknown): Record<string, unknown> {
  return { body: NDJSON_APIS.has(api) && typeof body === 'string' ? body.split('\n').filter((l) => l.trim() !== '') : body };
}

// The request the client's last API call built; the client's transport (below) records it instead of sending.
let captured: any = null;

async function captureClientRequest(client: any, fn: any, params: Record<string, unknown>): Promise<any> {
  captured = null;
  await new Promise<void>((resolve, reject) => {
    fn.call(client, params, {}, (err: Error | null) => {
      if (err && err.name === 'ConfigurationError') reject(new ParamError(err.message));
      else resolve();
    });
  });
  if (!captured) throw new Error('the client built no request');
  return captured;
}

function recordingTransport(Transport: any): any {
  return class RecordingTransport extends Transport {
    request(req: any, _opts: any, cb: any): { abort(): void } {
      captured = req;
      if (typeof cb === 'function') cb(null, { body: null, statusCode: 200 });
      return { abort: () => undefined };
    }
  };
}

function parseSpec(def: any): Spec {
  const url = def.url ?? {};
  const topMethods: string[] = def.methods ?? [];
  const params = new Set<string>([...Object.keys(url.params ?? {}), ...Object.keys(def.params ?? {})]);
  const paths: SpecPath[] = [];
  for (const p of url.paths ?? (url.path ? [url.path] : [])) {
    if (typeof p === 'string') paths.push({ path: p, methods: topMethods, parts: partNames(p) });
    else paths.push({ path: p.path, methods: p.methods ?? topMethods, parts: partNames(p.path) });
  }
  const bulkBody = def.body?.serialize === 'bulk' || (def.body?.content_type ?? '').includes('ndjson');
  return { paths, params, bulkBody };
}

function partNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
}

function resolveFromSpec(api: string, spec: Spec, params: Record<string, unknown>): HttpCall {
  const { body, ...rest } = params;
  const supplied = new Set(Object.keys(rest));
  let best: SpecPath | null = null;
  for (const p of spec.paths) {
    if (!p.parts.every((x) => supplied.has(x))) continue;
    if (!best || p.parts.length > best.parts.length) best = p;
  }
  if (!best) throw new ParamError(`[${api}] no path of the spec fits the parts given: ${[...supplied].join(',')}`);
  const allParts = new Set(spec.paths.flatMap((p) => p.parts));
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(rest)) {
    if (best.parts.includes(k)) continue;
    if (!spec.params.has(k) && !COMMON.has(k)) {
      if (allParts.has(k)) throw new ParamError(`[${api}] part [${k}] fits no path together with the others`);
      throw new ParamError(`[${api}] does not support the parameter [${k}]`);
    }
    query[k] = paramString(v);
  }
  const path = best.path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(paramString(rest[k])));
  const method = chooseMethod(best.methods, body !== undefined);
  const ndjson = spec.bulkBody || NDJSON_APIS.has(api);
  const payload = body === undefined ? undefined : ndjson ? toNdjson(body) : serialiseBody(body);
  return { method, path, query, body: payload, ndjson };
}

function chooseMethod(methods: string[], hasBody: boolean): string {
  if (hasBody) for (const m of ['POST', 'PUT']) if (methods.includes(m)) return m;
  return methods[0] ?? 'GET';
}

function paramString(v: unknown): string {
  if (Array.isArray(v)) return v.map(String).join(',');
  return String(v);
}

function serialiseBody(body: unknown): string | undefined {
  if (body === undefined || body === null || body === '') return undefined;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

function toNdjson(body: unknown): string {
  if (typeof body === 'string') return body.endsWith('\n') ? body : body + '\n';
  const lines = Array.isArray(body) ? body : [body];
  return lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
}
