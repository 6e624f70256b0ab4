/**
 * Rule files (`rule_files` of prometheus.yml) as Prometheus 2.42 reads them (`model/rulefmt`): groups with
 * `name`, `interval`, `limit` and rules that are either `record` or `alert`, each with `expr`, and for alerts
 * `for`, `keep_firing_for`, `labels`, `annotations`. Errors name the file, group and rule like promtool does.
 */
import { parse as parseYaml } from 'yaml';
import { InvalidArgumentError } from '../errors.ts';
import { parseExpr } from '../promql/parser.ts';
import { parseDuration } from '../promql/lexer.ts';
import type { Expr } from '../promql/ast.ts';

export interface RuleDef {
  kind: 'recording' | 'alerting';
  name: string;
  exprText: string;
  expr: Expr;
  forMs: number;
  keepFiringForMs: number;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface GroupDef { name: string; file: string; intervalMs: number; limit: number; rules: RuleDef[] }

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function fail(file: string, msg: string): never {
  throw new InvalidArgumentError('INVALID_ARGUMENT', `${file}: ${msg}`, { file });
}

function strMap(v: unknown, file: string, what: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) fail(file, `${what} must be a map`);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = x === null ? '' : String(x);
  return out;
}

function dur(v: unknown, file: string, what: string): number {
  if (v === undefined || v === null) return 0;
  const d = parseDuration(String(v));
  if (d === null) fail(file, `${what}: not a valid duration string: ${JSON.stringify(String(v))}`);
  return d;
}

/** Parses one rule file's text; `defaultIntervalMs` is the global evaluation_interval. */
export function parseRuleFile(text: string, file: string, defaultIntervalMs: number): GroupDef[] {
  let doc: unknown;
  try { doc = parseYaml(text); } catch (e) { fail(file, (e as Error).message); }
  if (doc === null || doc === undefined) return [];
  const top = doc as { groups?: unknown };
  for (const k of Object.keys(top)) if (k !== 'groups') fail(file, `field ${k} not found in type rulefmt.RuleGroups`);
  if (!Array.isArray(top.groups)) return [];
  const seen = new Set<string>();
  return top.groups.map((g: Record<string, unknown>) => {
    const name = String(g.name ?? '');
    if (name === '') fail(file, 'Groupname must not be empty');
    if (seen.has(name)) fail(file, `groupname: "${name}" is repeated in the same file`);
    seen.add(name);
    const rules = Array.isArray(g.rules) ? g.rules : [];
    return {
      name, file, intervalMs: dur(g.interval, file, 'interval') || defaultIntervalMs,
      limit: Number(g.limit ?? 0), rules: rules.map((r: Record<string, unknown>, i: number) => parseRule(r, file, name, i)),
    };
  });
}

function parseRule(r: Record<string, unknown>, file: string, group: string, i: number): RuleDef {
  const where = `group "${group}", rule ${i + 1}`;
  const record = r.record === undefined ? '' : String(r.record), alert = r.alert === undefined ? '' : String(r.alert);
  if (record !== '' && alert !== '') fail(file, `${where}: only one of 'record' and 'alert' must be set`);
  if (record === '' && alert === '') fail(file, `${where}: one of 'record' or 'alert' must be set`);
  const exprText = String(r.expr ?? '');
  if (exprText === '') fail(file, `${where}: field 'expr' must be set in rule`);
  let expr: Expr;
  try { expr = parseExpr(exprText); } catch (e) { fail(file, `${where}: could not parse expression: ${(e as Error).message}`); }
  const labels = strMap(r.labels, file, 'labels');
  for (const k of Object.keys(labels)) if (!LABEL_NAME.test(k)) fail(file, `${where}: invalid label name: ${k}`);
  if (record !== '') {
    if (!METRIC_NAME.test(record)) fail(file, `${where}: invalid recording rule name: ${record}`);
    if (r.annotations !== undefined) fail(file, `${where}: invalid field 'annotations' in recording rule`);
    if (r.for !== undefined) fail(file, `${where}: invalid field 'for' in recording rule`);
  }
  return {
    kind: record !== '' ? 'recording' : 'alerting', name: record || alert, exprText, expr,
    forMs: dur(r.for, file, 'for'), keepFiringForMs: dur(r.keep_firing_for, file, 'keep_firing_for'),
    labels, annotations: strMap(r.annotations, file, 'annotations'),
  };
}
