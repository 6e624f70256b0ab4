/**
 * Runner for Prometheus's PromQL test-script format (`promql/test.go` of 2.42, plus `eval range`):
 * `load <interval>`, `clear`, `eval[_fail|_ordered] instant at <dur> <expr>`, `eval range from … to … step …`,
 * series notation (`0+10x100`, `1x5`, `_`, `_x3`, `stale`). Like the Go runner, every instant eval is also run
 * as a range query over [t-1m, t+1m] and the middle step must give the same result.
 */
import { parseExpr } from '../../src/engine/promql/parser.ts';
import { instantQuery, rangeQuery } from '../../src/engine/promql/engine.ts';
import type { EngineOptions } from '../../src/engine/promql/engine.ts';
import { parseDurationMsOrNull } from '../../src/engine/model/duration.ts';
import { formatExpr } from '../../src/engine/promql/printer.ts';
import { AT_MODIFIER_UNSAFE, walk } from '../../src/engine/promql/ast.ts';
import { unquoteString } from '../../src/engine/promql/strings.ts';
import { labelsKey } from '../../src/engine/tsdb/labels.ts';
import { labelsString } from '../../src/engine/promql/labels.ts';
import { STALE_NAN, isStaleNaN } from '../../src/engine/tsdb/api.ts';
import type { Matrix, QueryResult } from '../../src/engine/promql/value.ts';
import { MemQuerier } from '../../src/engine/tsdb/mem-querier.ts';
import type { Label, Labels } from '../../src/engine/tsdb/api.ts';

export const TEST_ENGINE_OPTIONS: EngineOptions = { lookbackMs: 300_000, maxSamples: 10_000, timeoutMs: 100_000, defaultSubqueryStepMs: 60_000 };

export interface CaseResult { line: number; expr: string; ok: boolean; skipped?: boolean; message?: string }
export interface ScriptResult { passed: number; failed: number; skipped: number; cases: CaseResult[] }

interface Expected { labels: Labels | null; values: Item[] }

const NUM = '[+-]?(?:inf|nan|(?:\\d+\\.?\\d*|\\.\\d+)(?:e[+-]?\\d+)?)';
const ITEM_RE = new RegExp(`^(${NUM})(?:([+-])(${NUM}))?(?:x(\\d+))?$`, 'i');

function num(s: string): number {
  const l = s.toLowerCase().replace(/^\+/, '');
  if (l === 'inf') return Infinity;
  if (l === '-inf') return -Infinity;
  if (l === 'nan' || l === '-nan') return NaN;
  if (/^-?0x/.test(l)) return l.startsWith('-') ? -parseInt(l.slice(3), 16) : parseInt(l.slice(2), 16);
  return Number(l);
}

/** Stands for a stale marker until the sample is stored (a NaN payload would not survive a JS double array). */
export const STALE = 'stale' as const;
type Item = number | null | typeof STALE;

/** Expands a value sequence; null marks an omitted sample. */
export function parseValues(items: string[]): Item[] {
  const out: Item[] = [];
  for (const it of items) {
    if (it === '_') { out.push(null); continue; }
    const blank = /^_x(\d+)$/.exec(it);
    if (blank) { for (let i = 0; i < Number(blank[1]); i++) out.push(null); continue; }
    if (it === 'stale') { out.push(STALE); continue; }
    const m = ITEM_RE.exec(it);
    if (!m) throw new Error(`bad series value ${JSON.stringify(it)}`);
    let cur = num(m[1]);
    if (m[4] === undefined) { out.push(cur); continue; }
    const inc = m[3] !== undefined ? (m[2] === '-' ? -num(m[3]) : num(m[3])) : 0;
    const times = Number(m[4]);
    for (let i = 0; i <= times; i++) { out.push(cur); cur += inc; }
  }
  return out;
}

/** Parses `name{a="b"} values…` into labels and the rest of the line. */
export function parseSeriesLine(line: string): { labels: Labels; rest: string } {
  let i = 0;
  const labels: Label[] = [];
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
  if (name) { labels.push({ name: '__name__', value: name[0] }); i = name[0].length; }
  if (line[i] === '{') {
    i++;
    for (;;) {
      while (line[i] === ' ' || line[i] === ',') i++;
      if (line[i] === '}') { i++; break; }
      const ln = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(i));
      if (!ln) throw new Error(`bad label in ${line}`);
      i += ln[0].length;
      while (line[i] === ' ') i++;
      if (line[i] !== '=') throw new Error(`expected = in ${line}`);
      i++;
      while (line[i] === ' ') i++;
      const q = line[i];
      let j = i + 1;
      while (j < line.length && line[j] !== q) { if (line[j] === '\\' && q !== '`') j++; j++; }
      const v = unquoteString(line.slice(i, j + 1));
      if (v === null) throw new Error(`bad label value in ${line}`);
      labels.push({ name: ln[0], value: v });
      i = j + 1;
    }
  }
  if (i === 0) throw new Error(`bad series line ${line}`);
  labels.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { labels: labels.filter((l) => l.value !== ''), rest: line.slice(i).trim() };
}

function almostEqual(a: number, b: number): boolean {
  if (isStaleNaN(a) || isStaleNaN(b)) return isStaleNaN(a) && isStaleNaN(b);
  if (Number.isNaN(a) && Number.isNaN(b)) return true;
  if (a === b) return true;
  const minNormal = 2.2250738585072014e-308;
  const diff = Math.abs(a - b);
  if (a === 0 || b === 0 || Math.abs(a) + Math.abs(b) < minNormal) return diff < 1e-6 * minNormal;
  return diff / Math.min(Math.abs(a) + Math.abs(b), Number.MAX_VALUE) < 1e-6;
}

function dur(s: string): number {
  const d = parseDurationMsOrNull(s.trim());
  if (d === null) throw new Error(`bad duration ${s}`);
  return d;
}

export function runScript(text: string, opts: EngineOptions = TEST_ENGINE_OPTIONS): ScriptResult {
  const lines = text.split('\n').map((l) => l.trim()).map((l) => (l.startsWith('#') ? '' : l));
  const res: ScriptResult = { passed: 0, failed: 0, skipped: 0, cases: [] };
  let q = new MemQuerier();
  // Native histograms are out of scope: their series are not loaded and evals touching them count as skipped.
  const nativeNames = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l === '') continue;
    const cmd = l.split(/\s+/)[0].toLowerCase();
    if (cmd === 'clear') { q = new MemQuerier(); continue; }
    if (cmd.startsWith('load')) {
      const interval = dur(l.split(/\s+/)[1]);
      for (i++; i < lines.length && lines[i] !== ''; i++) {
        const { labels, rest } = parseSeriesLine(lines[i]);
        if (rest.includes('{{')) { nativeNames.add(labels.find((x) => x.name === '__name__')?.value ?? ''); continue; }
        const vals = parseValues(rest.split(/\s+/).filter(Boolean));
        vals.forEach((v, k) => { if (v !== null) q.append(labels, k * interval, v === STALE ? STALE_NAN : v); });
      }
      continue;
    }
    if (!cmd.startsWith('eval')) throw new Error(`line ${i + 1}: invalid command ${JSON.stringify(l)}`);
    const start = i;
    const expected: Expected[] = [];
    let native = [...nativeNames].some((n) => n !== '' && new RegExp(`\\b${n}\\b`).test(l));
    for (i++; i < lines.length && lines[i] !== ''; i++) {
      const d = lines[i];
      if (d.includes('{{')) { native = true; continue; }
      if (/^[+-]?(?:inf|nan|0x[0-9a-f]+|(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)$/i.test(d)) { expected.push({ labels: null, values: [num(d)] }); i++; break; }
      const { labels, rest } = parseSeriesLine(d);
      expected.push({ labels, values: parseValues(rest.split(/\s+/).filter(Boolean)) });
    }
    i--;
    if (native) { res.skipped++; res.cases.push({ line: start + 1, expr: l, ok: true, skipped: true }); continue; }
    const c = runEval(q, l, expected, opts, start + 1);
    res.cases.push(c);
    if (c.skipped) res.skipped++; else if (c.ok) res.passed++; else res.failed++;
  }
  return res;
}

function runEval(q: MemQuerier, header: string, expected: Expected[], opts: EngineOptions, line: number): CaseResult {
  const inst = /^eval(?:_(fail|ordered))?\s+instant\s+(?:at\s+(.+?))?\s+(.+)$/.exec(header);
  const range = /^eval(?:_(fail))?\s+range\s+from\s+(.+)\s+to\s+(.+)\s+step\s+(.+?)\s+(.+)$/.exec(header);
  const expr = inst ? inst[3] : range ? range[5] : header;
  const result = (ok: boolean, message?: string): CaseResult => ({ line, expr, ok, message });
  if (!inst && !range) return result(false, `bad eval header ${header}`);
  const fail = (inst ? inst[1] : range![1]) === 'fail';
  try {
    const ast = parseExpr(expr);
    if (range) {
      const s = dur(range[2]), e = dur(range[3]), st = dur(range[4]);
      const mat = rangeQuery(q, ast, s, e, st, opts);
      if (fail) return result(false, 'expected error, got none');
      return result(...compareMatrix(mat, expected, s, st));
    }
    const t = dur(inst![2] ?? '0s');
    const ordered = inst![1] === 'ordered';
    for (const [text, at] of [[expr, t] as const, ...atModifierCases(expr, t)]) {
      const tree = parseExpr(text);
      const r = instantQuery(q, tree, at, opts);
      if (fail) return result(false, `expected error, got none (${text} at ${at})`);
      const [ok, msg] = compareInstant(r, expected, ordered);
      if (!ok) return result(false, `${text} at ${at}ms: ${msg}`);
      // Like newer Go runners, start()/end() make the range-mode comparison meaningless.
      if (ordered || /@\s*(start|end)\s*\(/.test(text)) continue;
      const mat = rangeQuery(q, tree, at - 60_000, at + 60_000, 60_000, opts);
      const [ok2, msg2] = compareInstant(middleStep(mat, at, r.type === 'scalar'), expected, false);
      if (!ok2) return result(false, `range mode of ${text} at ${at}ms: ${msg2}`);
    }
    return result(true);
  } catch (err) {
    if (fail) return result(true);
    return result(false, `error: ${(err as Error).message}`);
  }
}

/**
 * The Go runner's step-invariance check: every selector and subquery without `@` gets `@ <t>` (not inside a
 * subquery that has one), and the printed expression must give the same result at other evaluation times.
 */
function atModifierCases(expr: string, t: number): [string, number][] {
  const tree = parseExpr(expr);
  let unsafe = false;
  walk(tree, (n, path) => {
    if (path.some((p) => p.kind === 'subquery' && p.timestamp !== null)) return;
    if (n.kind === 'vector' || n.kind === 'subquery') { if (n.timestamp === null) n.timestamp = t; }
    else if (n.kind === 'matrix') { if (n.vs.timestamp === null) n.vs.timestamp = t; }
    else if (n.kind === 'call' && AT_MODIFIER_UNSAFE.has(n.func)) unsafe = true;
  });
  if (unsafe) return [];
  const text = formatExpr(tree);
  const times = t === 0 ? [-1000, 0, 1000] : [-10 * t, 0, Math.trunc(t / 5), t, 10 * t];
  return times.map((et) => [text, et]);
}

function middleStep(mat: Matrix, t: number, scalar: boolean): QueryResult {
  const vector = [];
  for (const s of mat) {
    const k = s.t.indexOf(t);
    if (k >= 0) vector.push({ metric: s.metric, t, v: s.v[k] });
  }
  if (scalar) return { type: 'scalar', v: vector[0]?.v ?? NaN, t };
  return { type: 'vector', vector, t };
}

function compareInstant(r: QueryResult, expected: Expected[], ordered: boolean): [boolean, string?] {
  if (r.type === 'scalar') {
    if (expected.length !== 1 || expected[0].labels !== null) return [false, `got scalar ${r.v}, expected vector`];
    return almostEqual(r.v, expected[0].values[0] as number) ? [true] : [false, `scalar: expected ${expected[0].values[0]}, got ${r.v}`];
  }
  if (r.type !== 'vector') return [false, `received ${r.type} result on instant evaluation`];
  if (expected.some((e) => e.labels === null)) return [false, `expected scalar, got vector of ${r.vector.length}`];
  const want = new Map<string, { pos: number; v: number }>();
  expected.forEach((e, pos) => want.set(labelsKey(e.labels!), { pos, v: e.values[0] === STALE ? STALE_NAN : e.values[0]! }));
  for (let p = 0; p < r.vector.length; p++) {
    const s = r.vector[p];
    const w = want.get(labelsKey(s.metric));
    if (!w) return [false, `unexpected metric ${labelsString(s.metric)} in result`];
    if (ordered && w.pos !== p) return [false, `expected ${labelsString(s.metric)} at position ${w.pos}, got ${p}`];
    if (!almostEqual(s.v, w.v)) return [false, `expected ${w.v} for ${labelsString(s.metric)}, got ${s.v}`];
  }
  if (r.vector.length !== expected.length) return [false, `expected ${expected.length} samples, got ${r.vector.length}`];
  return [true];
}

function compareMatrix(mat: Matrix, expected: Expected[], start: number, step: number): [boolean, string?] {
  const want = new Map<string, Item[]>();
  for (const e of expected) want.set(e.labels ? labelsKey(e.labels) : '', e.values);
  for (const s of mat) {
    const w = want.get(labelsKey(s.metric));
    if (!w) return [false, `unexpected series ${labelsString(s.metric)}`];
    const exp: [number, number][] = [];
    w.forEach((v, k) => { if (typeof v === 'number') exp.push([start + k * step, v]); });
    if (exp.length !== s.t.length) return [false, `series ${labelsString(s.metric)}: expected ${exp.length} points, got ${s.t.length}`];
    for (let k = 0; k < exp.length; k++) {
      if (exp[k][0] !== s.t[k] || !almostEqual(exp[k][1], s.v[k])) {
        return [false, `series ${labelsString(s.metric)}: expected ${exp[k][1]}@${exp[k][0]}, got ${s.v[k]}@${s.t[k]}`];
      }
    }
  }
  if (mat.length !== expected.length) return [false, `expected ${expected.length} series, got ${mat.length}`];
  return [true];
}
