/**
 * Path router shared by the three APIs. Patterns are `/`-separated segments; `:name` captures one segment
 * (percent-decoded), `*name` as the last segment captures the rest. Literal segments win over captures at
 * every depth, so `/_cat/indices` beats `/:index/:type` whatever the registration order, as in
 * Elasticsearch's path trie.
 */
import type { HttpRequest, HttpResponse } from './http.ts';

export type Params = Record<string, string>;
export type RouteHandler = (req: HttpRequest, params: Params) => HttpResponse | Promise<HttpResponse>;

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
  private readonly guards: { prefix: string; check: (req: HttpRequest) => HttpResponse | null }[] = [];

  /**
   * Routes added from now on whose pattern starts with `prefix` first ask `check`, which answers instead
   * of the handler when it returns a response (Prometheus's not-ready 503 on the API while the TSDB opens).
   */
  guard(prefix: string, check: (req: HttpRequest) => HttpResponse | null): this {
    this.guards.push({ prefix, check });
    return this;
  }

  /** Registers `handler` for each method on `pattern`. */
  add(methods: string | string[], pattern: string, handler: RouteHandler): this {
    for (const g of this.guards) {
      if (!pattern.startsWith(g.prefix)) continue;
      const inner = handler;
      handler = (req, params) => g.check(req) ?? inner(req, params);
    }
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
    return this;
  }

  match(method: string, path: string): RouteMatch {
    const segs = splitPath(path);
    const params: Params = {};
    const found = walk(this.root, segs, 0, params);
    if (!found) return { kind: 'not-found' };
    const { handlers, pattern } = found;
    const h = handlers.get(method) ?? (method === 'HEAD' ? handlers.get('GET') : undefined);
    if (h) return { kind: 'found', handler: h, params, pattern };
    return { kind: 'method-not-allowed', allowed: [...handlers.keys()] };
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
