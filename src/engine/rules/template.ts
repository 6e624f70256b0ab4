/**
 * Alert label/annotation templates: parse once (at rule load, so a bad template refuses the file as
 * Prometheus's rulefmt does) and expand per alert with `$labels`, `$externalLabels`, `$externalURL`,
 * `$value` and the data fields `.Labels`, `.ExternalLabels`, `.ExternalURL`, `.Value`. Missing map keys
 * expand to "" (Prometheus sets `missingkey=zero`).
 */
import { parseTemplate, type Command, type ControlNode, type Node, type Operand, type Pipeline } from './template-parse.ts';
import { TEMPLATE_FUNCS, printValue, truth, type FuncEnv, type TemplateQuery } from './template-funcs.ts';

export type { TemplateQuery, QuerySample } from './template-funcs.ts';

export { TemplateError } from './template-parse.ts';

export interface TemplateData {
  Labels: Record<string, string>;
  ExternalLabels: Record<string, string>;
  ExternalURL: string;
  Value: number;
}

export interface Template { readonly name: string; readonly text: string; readonly nodes: Node[] }

const isFunc = (n: string): boolean => n in TEMPLATE_FUNCS;

/** Parses `text`; throws TemplateError (`template: <name>:<line>: …`). Plain text is kept as-is. */
export function compileTemplate(text: string, name: string): Template {
  return { name, text, nodes: text.includes('{{') ? parseTemplate(text, { name, isFunc }) : [{ k: 'text', s: text }] };
}

/**
 * Expands a template; throws Error (`template: <name>:<line>: executing …`) on a runtime error. `query`
 * backs the `query` template function (PromQL from a template, evaluated at the alert's evaluation time).
 */
export async function expandTemplate(t: Template, data: TemplateData, query?: TemplateQuery): Promise<string> {
  if (t.nodes.length === 1 && t.nodes[0].k === 'text') return t.nodes[0].s;
  const ex = new Executor(t.name, { externalURL: data.ExternalURL, query });
  const scope = new Map<string, unknown>([
    ['$', data], ['$labels', data.Labels], ['$externalLabels', data.ExternalLabels],
    ['$externalURL', data.ExternalURL], ['$value', data.Value],
  ]);
  return ex.run(t.nodes, data, [scope]);
}

type Scopes = Map<string, unknown>[];

class Executor {
  constructor(private readonly name: string, private readonly env: FuncEnv) {}

  async run(nodes: Node[], dot: unknown, scopes: Scopes): Promise<string> {
    let out = '';
    for (const n of nodes) {
      switch (n.k) {
        case 'text': out += n.s; break;
        case 'action': {
          const v = await this.pipeline(n.p, dot, scopes);
          if (!n.p.decl) out += printValue(v);
          break;
        }
        case 'if': case 'with': {
          const inner: Scopes = [...scopes, new Map()];
          const v = await this.pipeline(n.p, dot, inner);
          if (truth(v)) out += await this.run(n.then, n.k === 'with' ? v : dot, inner);
          else out += await this.run(n.else, dot, scopes);
          break;
        }
        case 'range': out += await this.range(n, dot, scopes); break;
      }
    }
    return out;
  }

  private async range(n: ControlNode, dot: unknown, scopes: Scopes): Promise<string> {
    const inner: Scopes = [...scopes, new Map()];
    const v = await this.pipeline({ ...n.p, decl: null }, dot, inner);
    const entries: [unknown, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x])
      : v && typeof v === 'object' ? Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]) : [];
    if (v !== null && v !== undefined && typeof v !== 'object') this.fail(n.p, `range can't iterate over ${printValue(v)}`);
    if (entries.length === 0) return this.run(n.else, dot, scopes);
    let out = '';
    for (const [k, x] of entries) {
      const s = new Map<string, unknown>();
      if (n.p.decl) s.set(n.p.decl, x);
      if (n.p.keyDecl) s.set(n.p.keyDecl, k);
      out += await this.run(n.then, x, [...inner, s]);
    }
    return out;
  }

  private fail(p: Pipeline, msg: string): never {
    throw new Error(`template: ${this.name}:${p.line}: executing "${this.name}" at <${p.text}>: ${msg}`);
  }

  private async pipeline(p: Pipeline, dot: unknown, scopes: Scopes): Promise<unknown> {
    let v: unknown = undefined;
    for (let i = 0; i < p.cmds.length; i++) v = await this.command(p, p.cmds[i], dot, scopes, i > 0 ? [v] : []);
    if (p.decl) {
      if (p.assign) { for (let i = scopes.length - 1; i >= 0; i--) if (scopes[i].has(p.decl)) { scopes[i].set(p.decl, v); break; } }
      else scopes[scopes.length - 1].set(p.decl, v);
    }
    return v;
  }

  private async command(p: Pipeline, c: Command, dot: unknown, scopes: Scopes, piped: unknown[]): Promise<unknown> {
    const head = c.args[0];
    if (head.k === 'func') {
      const args: unknown[] = [];
      for (const a of c.args.slice(1)) args.push(await this.operand(p, a, dot, scopes));
      args.push(...piped);
      try {
        return await TEMPLATE_FUNCS[head.name](args, this.env);
      } catch (e) {
        this.fail(p, `error calling ${head.name}: ${(e as Error).message}`);
      }
    }
    if (c.args.length > 1 || piped.length) this.fail(p, `can't give argument to non-function ${printValue(await this.operand(p, head, dot, scopes))}`);
    return this.operand(p, head, dot, scopes);
  }

  private async operand(p: Pipeline, o: Operand, dot: unknown, scopes: Scopes): Promise<unknown> {
    switch (o.k) {
      case 'lit': return o.v;
      case 'func': return this.command(p, { args: [o], line: p.line }, dot, scopes, []);
      case 'pipe': return this.fields(p, await this.pipeline(o.p, dot, scopes), o.fields);
      case 'field': return this.fields(p, dot, o.fields);
      case 'var': {
        for (let i = scopes.length - 1; i >= 0; i--) if (scopes[i].has(o.name)) return this.fields(p, scopes[i].get(o.name), o.fields);
        return this.fail(p, `undefined variable: ${o.name}`);
      }
    }
  }

  private fields(p: Pipeline, v: unknown, fields: string[]): unknown {
    for (const f of fields) {
      if (v === null || v === undefined) this.fail(p, `nil pointer evaluating .${f}`);
      if (typeof v !== 'object') this.fail(p, `can't evaluate field ${f} in type ${typeof v === 'number' ? 'float64' : typeof v}`);
      const o = v as Record<string, unknown>;
      if (!(f in o)) {
        if (isRoot(o)) this.fail(p, `can't evaluate field ${f} in type *template.tmplData`);
        v = '';
        continue;
      }
      v = o[f];
    }
    return v;
  }
}

function isRoot(o: Record<string, unknown>): boolean {
  return 'Labels' in o && 'ExternalLabels' in o && 'ExternalURL' in o;
}
