/**
 * The element graph (spec §3): a path id's source is the one element listing it in `outgoings`, its
 * targets are the elements listing it in `incomings`. Checks that apply to runnable workflows only
 * (GRAPH_INVALID) and the warnings every save gets live here.
 */
import type { ElementType } from './model.ts';

export interface GraphElement {
  displayId: string;
  type: ElementType;
  incomings: string[];
  outgoings: string[];
  extensions: unknown;
}

export interface Graph {
  byId: Map<string, GraphElement>;
  /** path id → displayIds of the elements it leads to. */
  targets: Map<string, string[]>;
  entries: string[];
}

export function compileGraph(els: readonly GraphElement[]): Graph {
  const byId = new Map<string, GraphElement>();
  const targets = new Map<string, string[]>();
  const entries: string[] = [];
  for (const e of els) {
    if (byId.has(e.displayId)) continue;
    byId.set(e.displayId, e);
    for (const p of e.incomings) {
      const t = targets.get(p);
      if (t) t.push(e.displayId); else targets.set(p, [e.displayId]);
    }
    if (e.type === 'Event' && e.incomings.length === 0) entries.push(e.displayId);
  }
  return { byId, targets, entries };
}

/** Yes/no paths of a Rule: explicit `extensions {yes,no}`, else outgoings[0] / outgoings[1]. */
export function ruleBranches(e: GraphElement): { yes: string | null; no: string | null } {
  const x = e.extensions as { yes?: unknown; no?: unknown } | null;
  if (x && typeof x === 'object' && (typeof x.yes === 'string' || typeof x.no === 'string')) {
    return { yes: typeof x.yes === 'string' ? x.yes : null, no: typeof x.no === 'string' ? x.no : null };
  }
  return { yes: e.outgoings[0] ?? null, no: e.outgoings[1] ?? null };
}

export interface GraphCheck { errors: { path: string; message: string }[]; warnings: string[] }

/** Every structural problem of the graph (errors) and dangling outgoing paths (warnings). */
export function checkGraph(els: readonly GraphElement[]): GraphCheck {
  const errors: { path: string; message: string }[] = [];
  const warnings: string[] = [];
  const seen = new Map<string, number>();
  const source = new Map<string, string>();
  els.forEach((e, i) => {
    const p = `workflowElements[${i}]`;
    if (seen.has(e.displayId)) errors.push({ path: `${p}.displayId`, message: `duplicate displayId ${e.displayId}` });
    seen.set(e.displayId, i);
    for (const o of e.outgoings) {
      const prev = source.get(o);
      if (prev !== undefined && prev !== e.displayId) errors.push({ path: `${p}.outgoings`, message: `path ${o} is an outgoing of both ${prev} and ${e.displayId}` });
      else source.set(o, e.displayId);
    }
    if (e.type === 'Event' && e.incomings.length > 0) errors.push({ path: `${p}.incomings`, message: `event element ${e.displayId} has incomings (wait-for-event is not supported)` });
    if (e.type === 'Rule') checkRule(e, p, errors);
  });
  const g = compileGraph(els);
  els.forEach((e, i) => {
    for (const inc of e.incomings) {
      if (!source.has(inc)) errors.push({ path: `workflowElements[${i}].incomings`, message: `incoming path ${inc} of ${e.displayId} has no source` });
    }
    for (const o of e.outgoings) {
      if (!g.targets.has(o)) warnings.push(`outgoing path ${o} of ${e.displayId} leads nowhere (branch ends)`);
    }
  });
  if (g.entries.length === 0) errors.push({ path: 'workflowElements', message: 'no entry Event element (an Event with empty incomings)' });
  const cycle = findCycle(g);
  if (cycle) errors.push({ path: 'workflowElements', message: `cycle through ${cycle.join(' -> ')}` });
  return { errors, warnings };
}

function checkRule(e: GraphElement, p: string, errors: { path: string; message: string }[]): void {
  if (e.outgoings.length > 2) errors.push({ path: `${p}.outgoings`, message: `rule ${e.displayId} has more than 2 outgoings` });
  const x = e.extensions as { yes?: unknown; no?: unknown } | null;
  if (!x || typeof x !== 'object') return;
  for (const k of ['yes', 'no'] as const) {
    const v = x[k];
    if (typeof v === 'string' && !e.outgoings.includes(v)) errors.push({ path: `${p}.extensions.${k}`, message: `rule ${e.displayId} ${k} path ${v} is not among its outgoings` });
  }
}

/** Iterative three-colour DFS; returns the element ids of one cycle or null. */
function findCycle(g: Graph): string[] | null {
  const colour = new Map<string, number>();
  for (const start of g.byId.keys()) {
    if (colour.get(start)) continue;
    const stack: { id: string; next: string[]; i: number }[] = [{ id: start, next: successors(g, start), i: 0 }];
    colour.set(start, 1);
    while (stack.length) {
      const top = stack[stack.length - 1];
      if (top.i >= top.next.length) { colour.set(top.id, 2); stack.pop(); continue; }
      const n = top.next[top.i++];
      const c = colour.get(n) ?? 0;
      if (c === 1) return [...stack.slice(stack.findIndex((s) => s.id === n)).map((s) => s.id), n];
      if (c === 0) { colour.set(n, 1); stack.push({ id: n, next: successors(g, n), i: 0 }); }
    }
  }
  return null;
}

function successors(g: Graph, id: string): string[] {
  const e = g.byId.get(id)!;
  const out: string[] = [];
  for (const o of e.outgoings) for (const t of g.targets.get(o) ?? []) out.push(t);
  return out;
}
