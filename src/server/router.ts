/**
 * Path router shared by the three APIs. Patterns are `/`-separated segments; `:name` captures one segment
 * (percent-decoded), `*name` as the last segment captures the rest. Literal segments win over captures at
 * every depth, so `/_cat/indices` beats `/:index/:type` whatever the registration order, as in
 * Elasticsearch's path trie.
 */
import type { HttpRequest, HttpResponse } from './http.ts';

export type Params = Record<string, string>;
export type RouteHandler = (req: HttpRequest, params: Params) => HttpResponse | Promise<HttpResponse>;
export type Middleware = (req: HttpRequest, next: () => HttpResponse | Promise<HttpResponse>) => HttpResponse | Promise<HttpResponse>;

interface Node {
  literal: Map<string, Node>;
  param: { name: string; node: Node } | null;
  rest: { name: string; handlers: Map<string, RouteHandler>; pattern: string } | null;
  handlers: Map<string, RouteHandler>;
  pattern: string;
}

const newNode = (): Node => ({ literal: new Map(), param: null, rest: null, handlers: new Map(), pattern: '' });

export type RouteMatch =
  | { kind: 'found'; handler: RouteHandler; params: Params; pattern: string }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

export class Router {
  private readonly root = newNode();
  /**
   * Nodes of patterns without captures, by path as written: such a path walks to the same node (literal
   * segments win at every depth), and looking it up skips splitting the path and the walk — the
   * workflow event route's path is one.
   */
  private readonly exact = new Map<string, Node>();
  private readonly middleware: { prefix: string; fn: Middleware }[] = [];
  private readonly optionsFallbacks: { prefix: string; handler: RouteHandler }[] = [];

  /**
   * Routes added from now on whose pattern starts with `prefix` run through `fn`, which may answer itself
   * or call `next` and adjust its response. The first registered is the outermost.
   */
  use(prefix: string, fn: Middleware): this {
    this.middleware.push({ prefix, fn });
    return this;
  }

  /** `use` for a check that answers instead of the handler when it returns a response (a not-ready 503). */
  guard(prefix: string, check: (req: HttpRequest) => HttpResponse | null): this {
    return this.use(prefix, (req, next) => check(req) ?? next());
  }

  /** Answers `OPTIONS` for every path under `prefix` that has no `OPTIONS` route of its own (CORS preflight). */
  options(prefix: string, handler: RouteHandler): this {
    this.optionsFallbacks.push({ prefix, handler: this.wrapped(prefix, handler) });
    return this;
  }

  private wrapped(pattern: string, handler: RouteHandler): RouteHandler {
    for (let i = this.middleware.length - 1; i >= 0; i--) {
      const m = this.middleware[i];
      if (!pattern.startsWith(m.prefix)) continue;
      const inner = handler;
      handler = (req, params) => m.fn(req, () => inner(req, params));
    }
    return handler;
  }

  /** Registers `handler` for each method on `pattern`. */
  add(methods: string | string[], pattern: string, handler: RouteHandler): this {
    handler = this.wrapped(pattern, handler);
    const segs = splitPath(pattern);
    let node = this.root;
    for (let i = 0; i < segs.length; i++) {
      const s = segs[i];
      if (s.startsWith('*')) {
        node.rest ??= { name: s.slice(1), handlers: new Map(), pattern };
        for (const m of [methods].flat()) node.rest.handlers.set(m, handler);
        return this;
      }
      if (s.startsWith(':')) {
        node.param ??= { name: s.slice(1), node: newNode() };
        if (node.param.name !== s.slice(1)) throw new Error(`route ${pattern}: capture :${s.slice(1)} clashes with :${node.param.name}`);
        node = node.param.node;
      } else {
        let next = node.literal.get(s);
        if (!next) { next = newNode(); node.literal.set(s, next); }
        node = next;
      }
    }
    for (const m of [methods].flat()) node.handlers.set(m, handler);
    node.pattern = pattern;
    if (!/\/[:*]/.test(pattern)) this.exact.set(`/${segs.join('/')}`, node);
    return this;
  }

  match(method: string, path: string): RouteMatch {
    const params: Params = {};
    const found = this.exact.get(path) ?? walk(this.root, splitPath(path), 0, params);
    const h = found?.handlers.get(method) ?? (method === 'HEAD' ? found?.handlers.get('GET') : undefined);
    if (h) return { kind: 'found', handler: h, params, pattern: found!.pattern };
    if (method === 'OPTIONS') {
      const o = this.optionsFallbacks.find((f) => path.startsWith(f.prefix));
      if (o) return { kind: 'found', handler: o.handler, params, pattern: `${o.prefix}*` };
    }
    if (!found) return { kind: 'not-found' };
    return { kind: 'method-not-allowed', allowed: [...found.handlers.keys()] };
  }
}

interface Found { handlers: Map<string, RouteHandler>; pattern: string }

function walk(node: Node, segs: string[], i: number, params: Params): Found | null {
  if (i === segs.length) {
    if (node.handlers.size) return { handlers: node.handlers, pattern: node.pattern };
    return null;
  }
  const lit = node.literal.get(segs[i]);
  if (lit) {
    const r = walk(lit, segs, i + 1, params);
    if (r) return r;
  }
  if (node.param && segs[i] !== '') {
    const r = walk(node.param.node, segs, i + 1, params);
    if (r) { params[node.param.name] = safeDecode(segs[i]); return r; }
  }
  if (node.rest) {
    params[node.rest.name] = segs.slice(i).map(safeDecode).join('/');
    return { handlers: node.rest.handlers, pattern: node.rest.pattern };
  }
  return null;
}

function splitPath(path: string): string[] {
  const trimmed = path.replace(/^\/+/, '').replace(/\/+$/, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

function safeDecode(s: string): string {
  try { return decodeURIComponent(s); } catch { return s; }
}
