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
  rest: { name: string; handlers: Map<string, RouteHandler> } | null;
  handlers: Map<string, RouteHandler>;
}

const newNode = (): Node => ({ literal: new Map(), param: null, rest: null, handlers: new Map() });

export type RouteMatch =
  | { kind: 'found'; handler: RouteHandler; params: Params }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

export class Router {
  private readonly root = newNode();

  /** Registers `handler` for each method on `pattern`. */
  add(methods: string | string[], pattern: string, handler: RouteHandler): this {
    const segs = splitPath(pattern);
    let node = this.root;
    for (let i = 0; i < segs.length; i++) {
      const s = segs[i];
      if (s.startsWith('*')) {
        node.rest ??= { name: s.slice(1), handlers: new Map() };
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
    return this;
  }

  match(method: string, path: string): RouteMatch {
    const segs = splitPath(path);
    const params: Params = {};
    const handlers = walk(this.root, segs, 0, params);
    if (!handlers) return { kind: 'not-found' };
    const h = handlers.get(method) ?? (method === 'HEAD' ? handlers.get('GET') : undefined);
    if (h) return { kind: 'found', handler: h, params };
    return { kind: 'method-not-allowed', allowed: [...handlers.keys()] };
  }
}

function walk(node: Node, segs: string[], i: number, params: Params): Map<string, RouteHandler> | null {
  if (i === segs.length) {
    if (node.handlers.size) return node.handlers;
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
    return node.rest.handlers;
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
