/**
 * Runs a list of DSL steps against a server: `do` sends the request (with `catch`, `headers`, `ignore`;
 * `warnings` are accepted and not checked) and keeps the response; `set` stashes; the rest are assertions.
 */
import { ApiResolver, ParamError, type HttpCall } from './api-resolver.ts';
import { AssertionFailure, assertCompare, assertContains, assertLength, assertMatch, assertTrue } from './assertions.ts';
import { httpCall } from './http-call.ts';
import { javaRegex } from './java-regex.ts';
import { lookup } from './lookup.ts';
import type { Stash } from './stash.ts';
import type { Step } from './suite.ts';

interface Response { status: number; body: unknown; text: string }

// `catch` values that name an HTTP status (ES's DoSection table).
const CATCH_STATUS: Record<string, number> = {
  bad_request: 400, unauthorized: 401, forbidden: 403, missing: 404, request_timeout: 408, conflict: 409, unavailable: 503,
};
// `catch: request` is any other error status.
const NOT_REQUEST = new Set([400, 401, 403, 404, 408, 409]);
const DO_KEYS = new Set(['catch', 'headers', 'warnings', 'allowed_warnings', 'node_selector']);

/** Java's toString of a parsed JSON value: maps as `{k=v, k2=v2}`, lists as `[a, b]`, strings bare. */
function javaToString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(javaToString).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v as object).map(([k, x]) => `${k}=${javaToString(x)}`).join(', ')}}`;
  return String(v);
}

/** A step that cannot be sent to a 6.8 node at all; the test is reported as skipped with this reason. */
export class NotApplicable extends Error {}

export class Executor {
  private last: Response | null = null;

  constructor(private readonly baseUrl: string, private readonly apis: ApiResolver, private readonly stash: Stash) {}

  async run(steps: Step[]): Promise<void> {
    for (let i = 0; i < steps.length; i++) {
      try {
        await this.step(steps[i]);
      } catch (e) {
        const name = Object.keys(steps[i])[0];
        const api = name === 'do' ? Object.keys(steps[i].do).find((k) => !DO_KEYS.has(k)) : '';
        (e as Error).message = `step ${i + 1} (${name}${api ? ' ' + api : ''}): ${(e as Error).message}`;
        throw e;
      }
    }
  }

  private async step(step: Step): Promise<void> {
    const [[kind, arg]] = Object.entries(step);
    const body = this.last?.body;
    switch (kind) {
      case 'skip': return;
      case 'do': return this.doStep(arg);
      case 'set':
        for (const [path, name] of Object.entries(arg)) this.stash.set(String(name), lookup(body, path, this.stash));
        return;
      case 'match': for (const [p, e] of Object.entries(arg)) assertMatch(body, p, e, this.stash); return;
      case 'is_true': return assertTrue(body, String(arg ?? ''), this.stash, true);
      case 'is_false': return assertTrue(body, String(arg ?? ''), this.stash, false);
      case 'length': for (const [p, n] of Object.entries(arg)) assertLength(body, p, n, this.stash); return;
      case 'contains': for (const [p, e] of Object.entries(arg)) assertContains(body, p, e, this.stash); return;
      case 'lt': case 'gt': case 'lte': case 'gte':
        for (const [p, n] of Object.entries(arg)) assertCompare(kind, body, p, n, this.stash);
        return;
      default: throw new Error(`unsupported step [${kind}]`);
    }
  }

  private async doStep(d: Record<string, any>): Promise<void> {
    const apiName = Object.keys(d).find((k) => !DO_KEYS.has(k));
    if (!apiName) throw new Error('do without an API');
    const params = this.stash.resolve(d[apiName] ?? {}) as Record<string, unknown>;
    const ignore = new Set([params.ignore ?? []].flat().map(Number));
    delete params.ignore;
    let call: HttpCall;
    try {
      call = await this.apis.resolve(apiName, params);
    } catch (e) {
      if (e instanceof ParamError && d.catch === 'param') return;
      // A typeless document call (7.x test files): the 6.8 API has no such request, so the test does not apply.
      if (e instanceof ParamError && /required parameter.*\btype\b/.test(e.message)) throw new NotApplicable(`typeless [${apiName}] call: ${e.message} (a 7.x test)`);
      throw e;
    }
    if (d.catch === 'param') throw new AssertionFailure(`expected a parameter error, the request ${call.method} ${call.path} was valid`);
    const res = await this.send(call, this.stash.resolve(d.headers ?? {}) as Record<string, string>);
    this.last = res;
    this.checkStatus(res, d.catch, ignore, call);
  }

  private checkStatus(res: Response, c: unknown, ignore: Set<number>, call: HttpCall): void {
    const where = `${call.method} ${call.path}${Object.keys(call.query).length ? '?' + new URLSearchParams(call.query) : ''}`;
    if (c === undefined) {
      if (res.status >= 400 && !ignore.has(res.status) && !(call.method === 'HEAD' && res.status === 404)) {
        throw new AssertionFailure(`${where} answered ${res.status}: ${res.text.slice(0, 300)}`);
      }
      return;
    }
    const want = String(c);
    let ok: boolean;
    if (CATCH_STATUS[want] !== undefined) ok = res.status === CATCH_STATUS[want];
    else if (want === 'request') ok = res.status >= 400 && !NOT_REQUEST.has(res.status);
    else if (want.startsWith('/')) {
      // DoSection matches the pattern against the response's `error` object as Java prints a Map (toString).
      const err = (res.body as Record<string, unknown> | null)?.error;
      ok = res.status >= 400 && javaRegex(want, false).test(err === undefined ? res.text : javaToString(err));
    }
    else throw new Error(`unknown catch [${want}]`);
    if (!ok) throw new AssertionFailure(`${where}: expected catch ${want}, got ${res.status} ${res.text.slice(0, 300)}`);
  }

  private async send(call: HttpCall, headers: Record<string, string>): Promise<Response> {
    const qs = new URLSearchParams(call.query).toString();
    const h: Record<string, string> = { ...headers };
    if (call.body !== undefined && !Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) {
      h['content-type'] = call.ndjson ? 'application/x-ndjson' : 'application/json';
    }
    const res = await httpCall(this.baseUrl + call.path + (qs ? '?' + qs : ''), call.method, h, call.body);
    const text = res.text;
    let body: unknown = text;
    if (call.method === 'HEAD') body = res.status === 200;
    else if (text !== '' && res.contentType.includes('json')) {
      try { body = JSON.parse(text); } catch { body = text; }
    }
    return { status: res.status, body, text };
  }
}
