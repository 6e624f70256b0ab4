/**
 * Rule files (`rule_files` in prometheus.yml), decoded strictly and validated like Prometheus 2.42's
 * `rulefmt`: unknown fields are refused, every group and rule is checked, and every problem is reported
 * with the texts rulefmt uses (`5:15: group "g", rule 1, "x": could not parse expression: …`).
 * Alert label and annotation templates are compiled here so a bad template refuses the file.
 */
import { isMap, isScalar, isSeq, lineCounter, parseDocument, type LineCounter, type Node as YNode, type Pair, type YAMLMap } from '../codec/yaml.ts';
import type { Expr } from '../promql/ast.ts';
import { parseExpr } from '../promql/parser.ts';
import type { Label } from '../tsdb/api.ts';
import { parseDurationMs } from '../model/duration.ts';
import { compileTemplate, type Template } from './template.ts';

export interface RuleSpec {
  kind: 'record' | 'alert';
  name: string;
  /** The expression as written. */
  exprText: string;
  expr: Expr;
  forMs: number;
  keepFiringForMs: number;
  /** Sorted by name. For alerts, values are templates. */
  labels: Label[];
  annotations: Label[];
  labelTemplates: Template[];
  annotationTemplates: Template[];
}

export interface RuleGroupSpec { name: string; intervalMs: number; limit: number; rules: RuleSpec[] }

const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const METRIC_NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const GROUP_FIELDS = ['name', 'interval', 'limit', 'rules'];
const RULE_FIELDS = ['record', 'alert', 'expr', 'for', 'keep_firing_for', 'labels', 'annotations'];

/** A scalar with its position (line 0 when absent, as rulefmt's zero yaml.Node prints). */
interface Pos { value: string; line: number; col: number }

class Decoder {
  readonly typeErrors: string[] = [];
  fatal: string | null = null;
  shapeError: string | null = null;
  constructor(private readonly lc: LineCounter) {}
  pos(n: YNode | null | undefined): { line: number; col: number } {
    if (!n || !n.range) return { line: 0, col: 0 };
    return this.lc.linePos(n.range[0]);
  }
  typeError(n: YNode | null | undefined, msg: string): void { this.typeErrors.push(`line ${this.pos(n).line}: ${msg}`); }
  fields(m: YAMLMap, allowed: string[], type: string): Map<string, Pair> {
    const out = new Map<string, Pair>();
    this.noDuplicates(m);
    for (const p of m.items) {
      const k = isScalar(p.key) ? String(p.key.value) : '';
      if (!allowed.includes(k)) this.typeError(p.key as YNode, `field ${k} not found in type ${type}`);
      else if (!out.has(k)) out.set(k, p);
    }
    return out;
  }
  /** go-yaml refuses a repeated key in a mapping it decodes, naming both lines. */
  noDuplicates(m: YAMLMap): void {
    const seen = new Map<string, number>();
    for (const p of m.items) {
      const k = isScalar(p.key) ? String(p.key.value) : '';
      const line = this.pos(p.key as YNode).line;
      const first = seen.get(k);
      if (first !== undefined) this.typeError(p.key as YNode, `mapping key ${JSON.stringify(k)} already defined at line ${first}`);
      else seen.set(k, line);
    }
  }
  /** A `yaml.Node` field (record, alert, expr): any node is accepted; only a scalar has a value. */
  node(p: Pair | undefined): Pos {
    if (!p || p.value === null || (isScalar(p.value) && p.value.value === null)) return { value: '', line: 0, col: 0 };
    const v = p.value as YNode;
    if (!isScalar(v)) return { value: '', ...this.pos(v) };
    return this.scalar(p, 'string');
  }
  scalar(p: Pair | undefined, goType: string): Pos {
    if (!p || p.value === null || (isScalar(p.value) && p.value.value === null)) return { value: '', line: 0, col: 0 };
    const v = p.value as YNode;
    if (!isScalar(v)) { this.typeError(v, `cannot unmarshal ${tagOf(v)} into ${goType}`); return { value: '', line: 0, col: 0 }; }
    const src = (v as { source?: string }).source;
    return { value: src ?? String(v.value), ...this.pos(v) };
  }
  duration(p: Pair | undefined): number {
    const s = this.scalar(p, 'model.Duration');
    if (s.line === 0) return 0;
    try { return parseDurationMs(s.value); } catch (e) { this.fatal ??= (e as Error).message; return 0; }
  }
  stringMap(p: Pair | undefined): Map<string, string> {
    const out = new Map<string, string>();
    if (!p || p.value === null || (isScalar(p.value) && p.value.value === null)) return out;
    if (!isMap(p.value)) { this.typeError(p.value as YNode, `cannot unmarshal ${tagOf(p.value as YNode)} into map[string]string`); return out; }
    this.noDuplicates(p.value);
    for (const item of p.value.items) {
      const k = isScalar(item.key) ? String(item.key.value) : '';
      out.set(k, this.scalar(item, 'string').value);
    }
    return out;
  }
}

function tagOf(n: YNode): string {
  if (isMap(n)) return '!!map';
  if (isSeq(n)) return '!!seq';
  if (isScalar(n)) return `${typeof n.value === 'number' ? '!!int' : typeof n.value === 'boolean' ? '!!bool' : '!!str'} \`${String(n.value)}\``;
  return '!!null';
}

/** Parses and validates one rule file. Returns the groups, or every error (each prefixed with `file: `). */
export function parseRuleFile(text: string, file: string): { groups: RuleGroupSpec[]; errors: string[] } {
  const { groups, errors } = parseRules(text);
  return { groups: errors.length ? [] : groups, errors: errors.map((e) => `${file}: ${e}`) };
}

/** `rulefmt.Parse`: decoding errors first (then nothing else is checked), then validation errors. */
export function parseRules(text: string): { groups: RuleGroupSpec[]; errors: string[] } {
  const lc = lineCounter();
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: false });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const line = e.linePos?.[0]?.line ?? 0;
    const msg = `yaml: line ${line}: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`;
    return { groups: [], errors: [msg, msg] }; // rulefmt decodes twice (typed, then as nodes) and reports both failures
  }
  const d = new Decoder(lc);
  const root = doc.contents as YNode | null;
  const groups: { spec: RuleGroupSpec; node: YNode; ruleNodes: RawRule[] }[] = [];
  if (root && !(isScalar(root) && root.value === null)) {
    if (!isMap(root)) {
      d.typeError(root, `cannot unmarshal ${tagOf(root)} into rulefmt.RuleGroups`);
      d.shapeError = `line ${d.pos(root).line}: cannot unmarshal ${tagOf(root)} into rulefmt.ruleGroups`;
    }
    else {
      const f = d.fields(root, ['groups'], 'rulefmt.RuleGroups');
      const gs = f.get('groups')?.value as YNode | null | undefined;
      if (gs && isSeq(gs)) for (const g of gs.items) groups.push(decodeGroup(d, g as YNode));
      else if (gs && !(isScalar(gs) && gs.value === null)) {
        d.typeError(gs, `cannot unmarshal ${tagOf(gs)} into []rulefmt.RuleGroup`);
        d.shapeError = `line ${d.pos(gs).line}: cannot unmarshal ${tagOf(gs)} into []yaml.Node`;
      }
    }
  }
  if (d.fatal) return { groups: [], errors: [d.fatal] };
  if (d.typeErrors.length) {
    const errors = [`yaml: unmarshal errors:\n  ${d.typeErrors.join('\n  ')}`];
    // rulefmt decodes the file a second time into yaml.Node groups; a shape error fails that decode too.
    if (d.shapeError) errors.push(`yaml: unmarshal errors:\n  ${d.shapeError}`);
    return { groups: [], errors };
  }
  const errors: string[] = [];
  const seen = new Set<string>();
  for (const g of groups) {
    const { line, col } = d.pos(g.node);
    if (g.spec.name === '') errors.push(`${line}:${col}: Groupname must not be empty`);
    if (seen.has(g.spec.name)) errors.push(`${line}:${col}: groupname: "${g.spec.name}" is repeated in the same file`);
    seen.add(g.spec.name);
    g.ruleNodes.forEach((r, i) => {
      const ruleName = r.alert.value !== '' ? r.alert.value : r.record.value;
      const spec = validateRule(r, (err, node, alt) => {
        const where = alt ? `${node!.line}:${node!.col}: ${alt.line}:${alt.col}: ` : node ? `${node.line}:${node.col}: ` : '';
        errors.push(`${where}group ${JSON.stringify(g.spec.name)}, rule ${i + 1}, ${JSON.stringify(ruleName)}: ${err}`);
      });
      if (spec) g.spec.rules.push(spec);
    });
  }
  return { groups: groups.map((g) => g.spec), errors };
}

interface RawRule {
  record: Pos; alert: Pos; expr: Pos; forMs: number; keepFiringForMs: number;
  labels: Map<string, string>; annotations: Map<string, string>;
}

function decodeGroup(d: Decoder, node: YNode): { spec: RuleGroupSpec; node: YNode; ruleNodes: RawRule[] } {
  const spec: RuleGroupSpec = { name: '', intervalMs: 0, limit: 0, rules: [] };
  const ruleNodes: RawRule[] = [];
  if (!isMap(node)) { d.typeError(node, `cannot unmarshal ${tagOf(node)} into rulefmt.RuleGroup`); return { spec, node, ruleNodes }; }
  const f = d.fields(node, GROUP_FIELDS, 'rulefmt.RuleGroup');
  spec.name = d.scalar(f.get('name'), 'string').value;
  spec.intervalMs = d.duration(f.get('interval'));
  const lim = d.scalar(f.get('limit'), 'int');
  if (lim.line !== 0) {
    if (!/^[+-]?\d+$/.test(lim.value)) d.typeError(f.get('limit')!.value as YNode, `cannot unmarshal !!str \`${lim.value}\` into int`);
    else spec.limit = Number(lim.value);
  }
  const rules = f.get('rules')?.value as YNode | null | undefined;
  if (rules && isSeq(rules)) {
    for (const r of rules.items) ruleNodes.push(decodeRule(d, r as YNode));
  } else if (rules && !(isScalar(rules) && rules.value === null)) {
    d.typeError(rules, `cannot unmarshal ${tagOf(rules)} into []rulefmt.RuleNode`);
  }
  return { spec, node, ruleNodes };
}

function decodeRule(d: Decoder, node: YNode): RawRule {
  const empty: Pos = { value: '', line: 0, col: 0 };
  if (!isMap(node)) {
    d.typeError(node, `cannot unmarshal ${tagOf(node)} into rulefmt.RuleNode`);
    return { record: empty, alert: empty, expr: empty, forMs: 0, keepFiringForMs: 0, labels: new Map(), annotations: new Map() };
  }
  const f = d.fields(node, RULE_FIELDS, 'rulefmt.RuleNode');
  return {
    record: d.node(f.get('record')), alert: d.node(f.get('alert')), expr: d.node(f.get('expr')),
    forMs: d.duration(f.get('for')), keepFiringForMs: d.duration(f.get('keep_firing_for')),
    labels: d.stringMap(f.get('labels')), annotations: d.stringMap(f.get('annotations')),
  };
}

type Report = (err: string, node?: Pos, alt?: Pos) => void;

/** `RuleNode.Validate` plus template parsing; returns the rule when it is valid. */
function validateRule(r: RawRule, report: Report): RuleSpec | null {
  let ok = true;
  const bad: Report = (e, n, a) => { ok = false; report(e, n, a); };
  if (r.record.value !== '' && r.alert.value !== '') bad("only one of 'record' and 'alert' must be set", r.record, r.alert);
  if (r.record.value === '' && r.alert.value === '') bad("one of 'record' or 'alert' must be set", r.record);
  let expr: Expr | null = null;
  if (r.expr.value === '') bad("field 'expr' must be set in rule", r.expr);
  else {
    try { expr = parseExpr(r.expr.value); } catch (e) { bad(`could not parse expression: ${(e as Error).message}`, r.expr); }
  }
  if (r.record.value !== '') {
    if (r.annotations.size > 0) bad("invalid field 'annotations' in recording rule", r.record);
    if (r.forMs !== 0) bad("invalid field 'for' in recording rule", r.record);
    if (r.keepFiringForMs !== 0) bad("invalid field 'keep_firing_for' in recording rule", r.record);
    if (!METRIC_NAME_RE.test(r.record.value)) bad(`invalid recording rule name: ${r.record.value}`, r.record);
  }
  for (const k of [...r.labels.keys()].sort()) {
    if (!LABEL_NAME_RE.test(k) || k === '__name__') bad(`invalid label name: ${k}`);
  }
  for (const k of [...r.annotations.keys()].sort()) if (!LABEL_NAME_RE.test(k)) bad(`invalid annotation name: ${k}`);
  const isAlert = r.alert.value !== '' && r.record.value === '';
  const tplName = `__alert_${r.alert.value}`;
  const compile = (m: Map<string, string>, what: string): Template[] => [...m.keys()].sort().map((k) => {
    try { return compileTemplate(m.get(k)!, tplName); } catch (e) { bad(`${what} ${JSON.stringify(k)}: ${(e as Error).message}`); return compileTemplate('', tplName); }
  });
  const labelTemplates = isAlert ? compile(r.labels, 'label') : [];
  const annotationTemplates = isAlert ? compile(r.annotations, 'annotation') : [];
  if (!ok || !expr) return null;
  return {
    kind: isAlert ? 'alert' : 'record', name: isAlert ? r.alert.value : r.record.value, exprText: r.expr.value, expr,
    forMs: r.forMs, keepFiringForMs: r.keepFiringForMs, labels: sortedLabels(r.labels), annotations: sortedLabels(r.annotations),
    labelTemplates, annotationTemplates,
  };
}

function sortedLabels(m: Map<string, string>): Label[] {
  return [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([name, value]) => ({ name, value }));
}
