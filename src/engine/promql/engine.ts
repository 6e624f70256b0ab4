/**
 * The PromQL evaluator, with Prometheus 2.42's semantics (`promql/engine.go`). Everything is evaluated as a
 * range over `[start, end]` at `interval` steps (an instant query is a one-step range); every node yields a
 * matrix with one point per step, and operators/functions run step by step over instant vectors
 * (`rangeEval`). `@` pins a selector or subquery to one time, which gives the same results as 2.42's
 * step-invariant rewriting.
 */
import type { Labels, Querier } from '../tsdb/api.ts';
import type { AggregateExpr, Call, Expr, MatrixSelector, SubqueryExpr, VectorSelector } from './ast.ts';
import { typeOf } from './ast.ts';
import { compareLabels, dropMetricName, cachedLabelsKey, withoutMetricName } from './labels.ts';
import { readSeries, sampleAt, Window } from './storage.ts';
import type { StoredSeries } from './storage.ts';
import { canceledError, execError, timeoutError, tooManySamples } from './value.ts';
import type { Matrix, QueryResult, ResultSeries, Sample, Vector } from './value.ts';
import { evalBinary } from './binop.ts';
import { aggregate, groupingKeyFn } from './aggregate.ts';
import { VECTOR_FUNCS } from './functions.ts';
import { RANGE_FUNCS } from './functions-range.ts';
import type { RangeArgs } from './functions-range.ts';
import { absentLabels } from './functions.ts';
import { SlidingExtremum } from './sliding-extremum.ts';
import type { DecodedSeriesBound } from './decoded-series.ts';

export interface EngineOptions {
  lookbackMs: number;
  maxSamples: number;
  timeoutMs: number;
  /** Step of subqueries written without one (`[5m:]`): the evaluation interval, 1m by default. */
  defaultSubqueryStepMs: number;
  /** Evaluation stops (canceled) once another thread sets element 0 non-zero; checked with the deadline. */
  cancel?: Int32Array;
  /**
   * Where still encoded series (the querier's `deferred` ones) are decoded as the evaluation reads them, and
   * how many decoded samples it keeps; without it they are decoded when selected.
   */
  decoded?: DecodedSeriesBound;
  /**
   * The times `@ start()` and `@ end()` stand for (ms); by default the evaluated range's own ends. A part of a
   * range query evaluated on its own (a half of its steps) gives the whole query's.
   */
  atStartMs?: number;
  atEndMs?: number;
}
export const DEFAULT_ENGINE_OPTIONS: EngineOptions = { lookbackMs: 300_000, maxSamples: 50_000_000, timeoutMs: 120_000, defaultSubqueryStepMs: 60_000 };

interface Shared {
  querier: Querier;
  opts: EngineOptions;
  /** Wall-clock time (Date.now() ms) after which evaluation stops with a timeout. */
  deadlineMs: number;
  queryStartMs: number;
  queryEndMs: number;
  data: Map<VectorSelector, StoredSeries[]>;
  samples: number;
  /** Inner-loop iterations since the last clock read (see `tick`). */
  ticks: number;
}

/** Inner-loop iterations between deadline checks: a clock read per 4096 steps costs nothing measurable. */
const TICKS_PER_CHECK = 4096;

/** Evaluates `expr` at one time (ms). */
export function instantQuery(querier: Querier, expr: Expr, tMs: number, opts: EngineOptions = DEFAULT_ENGINE_OPTIONS): QueryResult {
  const sh = shared(querier, opts, tMs, tMs);
  const ev = new Evaluator(sh, tMs, tMs, 1);
  const type = typeOf(expr);
  if (expr.kind === 'string') return { type: 'string', s: expr.val, t: tMs };
  if (expr.kind === 'paren' && typeOf(expr) === 'string') throw execError('unexpected result in StepInvariantExpr evaluation: *parser.StringLiteral');
  const mat = ev.eval(expr);
  if (type === 'vector') return { type: 'vector', vector: mat.map((s) => ({ metric: s.metric, t: tMs, v: s.v[0] })), t: tMs };
  if (type === 'scalar') return { type: 'scalar', v: mat[0].v[0], t: tMs };
  return { type: 'matrix', matrix: mat };
}

/** Evaluates `expr` at `start + k·step` up to `end`; series come sorted by labels. */
export function rangeQuery(querier: Querier, expr: Expr, startMs: number, endMs: number, stepMs: number, opts: EngineOptions = DEFAULT_ENGINE_OPTIONS): Matrix {
  const sh = shared(querier, opts, startMs, endMs);
  const mat = new Evaluator(sh, startMs, endMs, stepMs).eval(expr);
  return mat.sort((a, b) => compareLabels(a.metric, b.metric));
}

function shared(querier: Querier, opts: EngineOptions, startMs: number, endMs: number): Shared {
  return { querier, opts, deadlineMs: Date.now() + opts.timeoutMs, queryStartMs: opts.atStartMs ?? startMs, queryEndMs: opts.atEndMs ?? endMs, data: new Map(), samples: 0, ticks: 0 };
}

function unwrapParens(e: Expr): Expr { while (e.kind === 'paren') e = e.expr; return e; }

export class Evaluator {
  readonly steps: number;
  constructor(readonly sh: Shared, readonly startMs: number, readonly endMs: number, readonly intervalMs: number) {
    this.steps = Math.floor((endMs - startMs) / intervalMs) + 1;
  }

  checkDeadline(): void {
    const cancel = this.sh.opts.cancel;
    if (cancel !== undefined && Atomics.load(cancel, 0) !== 0) throw canceledError('expression evaluation');
    if (Date.now() > this.sh.deadlineMs) throw timeoutError('expression evaluation');
  }
  /**
   * Call once per iteration of any loop whose length the query decides (steps of a `[1y:1ms]` subquery run
   * to billions): checks the deadline every `TICKS_PER_CHECK` calls.
   */
  tick(): void { if (++this.sh.ticks >= TICKS_PER_CHECK) { this.sh.ticks = 0; this.checkDeadline(); } }
  addSamples(n: number): void { this.sh.samples += n; if (this.sh.samples > this.sh.opts.maxSamples) throw tooManySamples(); }

  fetch(vs: VectorSelector): StoredSeries[] {
    let d = this.sh.data.get(vs);
    if (!d) { d = readSeries(this.sh.querier, vs.matchers, this.sh.opts.decoded ?? null); this.sh.data.set(vs, d); }
    return d;
  }

  /** The fixed evaluation time of `@`, or null. */
  atTime(n: { timestamp: number | null; startOrEnd: 'start' | 'end' | null }): number | null {
    if (n.timestamp !== null) return n.timestamp;
    if (n.startOrEnd === 'start') return this.sh.queryStartMs;
    if (n.startOrEnd === 'end') return this.sh.queryEndMs;
    return null;
  }

  eval(e: Expr): Matrix {
    this.checkDeadline();
    switch (e.kind) {
      case 'number': return [this.constant(e.val)];
      case 'string': throw execError('string literal in a value position');
      case 'paren': return this.eval(e.expr);
      case 'unary': return this.unary(e.op, e.expr);
      case 'vector': return this.vectorSelector(e);
      case 'matrix': return this.matrixSelector(e);
      case 'subquery': return this.subquery(e);
      case 'binary': return evalBinary(this, e);
      case 'aggregate': return this.aggregation(e);
      case 'call': return this.call(e);
    }
  }

  constant(v: number): ResultSeries {
    // One series of more steps than the sample limit is past it on its own (Prometheus counts a literal's points
    // too); checked before the arrays are made, which past 2^32 - 1 elements V8 refuses outright.
    if (this.steps > this.sh.opts.maxSamples) throw tooManySamples();
    const s: ResultSeries = { metric: [], t: new Array(this.steps), v: new Array(this.steps) };
    for (let i = 0; i < this.steps; i++) { this.tick(); s.t[i] = this.startMs + i * this.intervalMs; s.v[i] = v; }
    return s;
  }

  private unary(op: '-' | '+', inner: Expr): Matrix {
    const mat = this.eval(inner);
    if (op === '+') return mat;
    for (const s of mat) {
      s.metric = dropMetricName(s.metric);
      for (let i = 0; i < s.v.length; i++) s.v[i] = -s.v[i];
    }
    checkDuplicates(mat);
    return mat;
  }

  private vectorSelector(vs: VectorSelector): Matrix {
    const data = this.fetch(vs);
    const at = this.atTime(vs);
    const lookback = this.sh.opts.lookbackMs;
    const out: Matrix = [];
    for (const s of data) {
      const ser: ResultSeries = { metric: s.labels, t: [], v: [] };
      if (at !== null) {
        const i = sampleAt(s, at - vs.offset, lookback);
        if (i >= 0) for (let ts = this.startMs; ts <= this.endMs; ts += this.intervalMs) { this.tick(); this.pushChecked(ser, ts, s.v[i]); }
      } else {
        // Steps only move forward, so the newest sample at or before each step is found by walking on.
        const t = s.t, v = s.v, n = s.n, stale = s.stale;
        let i = -1;
        for (let ts = this.startMs; ts <= this.endMs; ts += this.intervalMs) {
          this.tick();
          const ref = ts - vs.offset;
          while (i + 1 < n && t[i + 1] <= ref) i++;
          if (i < 0 || t[i] < ref - lookback || (stale !== null && stale[i] === 1)) continue;
          this.pushChecked(ser, ts, v[i]);
        }
      }
      if (ser.t.length > 0) { this.addSamples(ser.t.length); out.push(ser); }
    }
    return out;
  }

  /**
   * Appends a point to a series still being built (counted with `addSamples` once it is complete): the limit is
   * checked as it grows, so a `[1y:1ms]` subquery over a selector stops at the limit, not at the heap's end.
   */
  private pushChecked(ser: ResultSeries, ts: number, v: number): void {
    if (this.sh.samples + ser.t.length >= this.sh.opts.maxSamples) throw tooManySamples();
    ser.t.push(ts); ser.v.push(v);
  }

  /** A vector selector whose values are the samples' own timestamps (for `timestamp()`). */
  selectorTimestamps(vs: VectorSelector, ts: number): Vector {
    const at = this.atTime(vs);
    const out: Vector = [];
    for (const s of this.fetch(vs)) {
      const i = sampleAt(s, (at ?? ts) - vs.offset, this.sh.opts.lookbackMs);
      if (i >= 0) out.push({ metric: s.labels, t: s.t[i], v: s.v[i] });
    }
    return out;
  }

  private matrixSelector(ms: MatrixSelector): Matrix {
    const maxt = (this.atTime(ms.vs) ?? this.startMs) - ms.vs.offset;
    const win = new Window();
    const out: Matrix = [];
    for (const s of this.fetch(ms.vs)) {
      win.load(s, maxt - ms.range, maxt);
      if (win.n === 0) continue;
      this.addSamples(win.n);
      const t = new Array<number>(win.n);
      for (let i = 0; i < win.n; i++) t[i] = win.t[win.s + i];
      out.push({ metric: s.labels, t, v: win.values() });
    }
    return out;
  }

  /** Evaluates a subquery's inner expression over its own aligned steps. */
  subquery(sq: SubqueryExpr): Matrix {
    const step = sq.step || this.sh.opts.defaultSubqueryStepMs;
    const at = this.atTime(sq);
    const endRef = (at ?? this.endMs) - sq.offset;
    const startRef = (at ?? this.startMs) - sq.offset - sq.range;
    const first = Math.ceil(startRef / step) * step;
    const inner = new Evaluator(this.sh, first, endRef, step);
    if (first > endRef) return [];
    return inner.eval(sq.expr);
  }

  /** `rangeEval`: evaluates the arguments, then calls `f` once per step with their instant vectors. */
  rangeEval(args: (Expr | null)[], f: (vecs: Vector[], ts: number) => Vector): Matrix {
    const mats: (Matrix | null)[] = args.map((a) => (a && typeOf(a) !== 'string' ? this.eval(a) : null));
    const cursors = mats.map((m) => (m ? new Int32Array(m.length) : null));
    // One sample object per input series, refilled each step: functions consume their inputs within the step.
    const samples: Sample[][] = mats.map((m) => (m ? m.map((x) => ({ metric: x.metric, t: 0, v: 0 })) : []));
    const vecs: Vector[] = args.map(() => []);
    const out = new OutputSeries();
    for (let ts = this.startMs, step = 0; ts <= this.endMs; ts += this.intervalMs, step++) {
      this.checkDeadline();
      for (let a = 0; a < mats.length; a++) {
        const m = mats[a];
        if (!m) continue;
        const cur = cursors[a]!;
        const pool = samples[a];
        const vec: Vector = [];
        for (let i = 0; i < m.length; i++) {
          const s = m[i];
          const c = cur[i];
          if (c < s.t.length && s.t[c] === ts) {
            const smp = pool[i];
            smp.t = ts; smp.v = s.v[c];
            vec.push(smp);
            cur[i] = c + 1;
          }
        }
        vecs[a] = vec;
      }
      const res = f(vecs, ts);
      if (this.startMs === this.endMs) {
        checkDuplicates(res);
        return res.map((s) => ({ metric: s.metric, t: [ts], v: [s.v] }));
      }
      for (let i = 0; i < res.length; i++) out.add(res[i], ts, step);
    }
    return out.series;
  }

  private aggregation(e: AggregateExpr): Matrix {
    const grouping = [...e.grouping].sort();
    const param = e.param ? unwrapParens(e.param) : null;
    if (param && param.kind === 'string') {
      return this.rangeEval([e.expr], (v) => aggregate(e.op, grouping, e.without, param.val, v[0]));
    }
    const keyOf = groupingKeyFn(grouping, e.without);
    const labelCache = new Map<string, Labels>();
    return this.rangeEval([e.param, e.expr], (v) => aggregate(e.op, grouping, e.without, e.param ? v[0][0].v : 0, v[1], keyOf, labelCache));
  }

  private call(e: Call): Matrix {
    if (e.func === 'timestamp') {
      const arg = unwrapParens(e.args[0]);
      if (arg.kind === 'vector') {
        return this.rangeEval([], (_v, ts) => VECTOR_FUNCS.timestamp([this.selectorTimestamps(arg, ts)], e, ts));
      }
    }
    const mi = e.args.findIndex((a) => { const u = unwrapParens(a); return u.kind === 'matrix' || u.kind === 'subquery'; });
    if (mi < 0) {
      const f = VECTOR_FUNCS[e.func];
      if (e.func === 'absent') {
        const lbls = absentLabels(unwrapParens(e.args[0]));
        return this.rangeEval(e.args, (v) => (v[0].length > 0 ? [] : [{ metric: lbls, t: 0, v: 1 }]));
      }
      return this.rangeEval(e.args, (v, ts) => f(v, e, ts));
    }
    return this.rangeCall(e, mi);
  }

  /** A function over a range vector: one window per series per step (2.42's matrix-argument path). */
  private rangeCall(e: Call, mi: number): Matrix {
    const others = e.args.map((a, i) => (i === mi ? null : this.eval(a)));
    const arg = unwrapParens(e.args[mi]) as MatrixSelector | SubqueryExpr;
    const f = RANGE_FUNCS[e.func];
    const range = arg.range;
    const offset = arg.kind === 'matrix' ? arg.vs.offset : arg.offset;
    const at = this.atTime(arg.kind === 'matrix' ? arg.vs : arg);
    const win = new Window();
    const scalars = new Array<number>(e.args.length).fill(0);
    const ra: RangeArgs = { win, rangeStart: 0, rangeEnd: 0, range, scalars, ts: 0 };
    const out: Matrix = [];
    // Over a selector's own arrays (no stale markers copied out), windows only slide forward.
    const ext = arg.kind === 'matrix' && (e.func === 'max_over_time' || e.func === 'min_over_time') ? new SlidingExtremum(e.func === 'max_over_time') : null;
    let sliding = false;
    const eachSeries = (labels: ResultSeries['metric'], load: (mint: number, maxt: number) => void): void => {
      const ser: ResultSeries = { metric: e.func === 'last_over_time' ? labels : withoutMetricName(labels), t: [], v: [] };
      for (let ts = this.startMs, step = 0; ts <= this.endMs; ts += this.intervalMs, step++) {
        this.tick();
        for (let j = 0; j < others.length; j++) { const o = others[j]; if (o) scalars[j] = o[0].v[step]; }
        const maxt = (at ?? ts) - offset;
        load(maxt - range, maxt);
        if (win.n === 0) continue;
        // The window's samples are held in memory while the function runs, as Prometheus counts them.
        if (this.sh.samples + win.n > this.sh.opts.maxSamples) throw tooManySamples();
        ra.rangeStart = maxt - range; ra.rangeEnd = maxt; ra.ts = ts;
        const v = sliding ? ext!.at(win.v, win.s, win.s + win.n) : f(ra);
        if (v !== null) { ser.t.push(ts); ser.v.push(v); }
      }
      if (ser.t.length > 0) { this.addSamples(ser.t.length); out.push(ser); }
    };
    this.checkDeadline();
    // Inputs have distinct label sets; dropping a `__name__` they all share keeps them distinct.
    let check = true;
    if (arg.kind === 'matrix') {
      const data = this.fetch(arg.vs);
      for (const s of data) {
        sliding = ext !== null && s.stale === null;
        if (sliding) ext!.reset(s.n);
        eachSeries(s.labels, (mint, maxt) => win.load(s, mint, maxt));
        s.done?.();
      }
      check = !sameMetricName(data);
    } else {
      for (const s of this.subquery(arg)) eachSeries(s.metric, (mint, maxt) => win.loadArrays(s.t, s.v, mint, maxt));
    }
    if (e.func === 'absent_over_time') return this.absentOverTime(out, arg);
    if (check) checkDuplicates(out);
    return out;
  }

  private absentOverTime(mat: Matrix, arg: MatrixSelector | SubqueryExpr): Matrix {
    const found = new Set<number>();
    for (const s of mat) for (const t of s.t) found.add(t);
    if (found.size === this.steps) return [];
    const ser: ResultSeries = { metric: arg.kind === 'matrix' ? absentLabels(arg) : [], t: [], v: [] };
    for (let ts = this.startMs; ts <= this.endMs; ts += this.intervalMs) { this.tick(); if (!found.has(ts)) { ser.t.push(ts); ser.v.push(1); } }
    return [ser];
  }
}

/**
 * Output series of a range evaluation. Results mostly reuse their label objects from step to step, so each
 * object is mapped once to a series id (by content), and duplicates within a step are caught by step stamps.
 */
class OutputSeries {
  readonly series: ResultSeries[] = [];
  private readonly ids = new Map<Labels, number>();
  private readonly keyIds = new Map<string, number>();
  private readonly stamp: number[] = [];

  add(s: Sample, ts: number, step: number): void {
    let id = this.ids.get(s.metric);
    if (id === undefined) {
      const k = cachedLabelsKey(s.metric);
      id = this.keyIds.get(k);
      if (id === undefined) {
        id = this.series.length;
        this.keyIds.set(k, id);
        this.series.push({ metric: s.metric, t: [], v: [] });
        this.stamp.push(-1);
      }
      this.ids.set(s.metric, id);
    }
    if (this.stamp[id] === step) throw execError('vector cannot contain metrics with the same labelset');
    this.stamp[id] = step;
    const ser = this.series[id];
    ser.t.push(ts); ser.v.push(s.v);
  }
}

/** Whether every series has the same `__name__` (sorted labels: it comes first when present). */
function sameMetricName(data: readonly StoredSeries[]): boolean {
  if (data.length < 2) return true;
  const l0 = data[0].labels;
  if (l0.length === 0 || l0[0].name !== '__name__') return false;
  const name = l0[0].value;
  for (let i = 1; i < data.length; i++) {
    const ls = data[i].labels;
    if (ls.length === 0 || ls[0].name !== '__name__' || ls[0].value !== name) return false;
  }
  return true;
}

/** Throws Prometheus's error when two series of a result have the same label set. */
function checkDuplicates(series: readonly { readonly metric: Labels }[]): void {
  if (series.length < 2) return;
  const seen = new Set<string>();
  for (const s of series) {
    const k = cachedLabelsKey(s.metric);
    if (seen.has(k)) throw execError('vector cannot contain metrics with the same labelset');
    seen.add(k);
  }
}
