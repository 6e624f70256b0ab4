/**
 * What recording and alerting rules share: the query function they evaluate through, their health and
 * last error, evaluation timing, and the label-set builder both use (Prometheus's `labels.Builder`,
 * where setting an empty value deletes the label).
 */
import type { Expr } from '../promql/ast.ts';
import type { Sample, Vector } from '../promql/value.ts';
import type { Labels } from '../tsdb/api.ts';
import type { RuleSpec } from './rule-file.ts';

/** Evaluates an instant query at `tMs`; a scalar result comes back as one sample with no labels. */
export type QueryFn = (expr: Expr, tMs: number) => Promise<Vector>;

export type RuleHealth = 'unknown' | 'ok' | 'err';

export abstract class BaseRule {
  health: RuleHealth = 'unknown';
  lastError: string | null = null;
  /** Wall-clock ms when the last evaluation started (0 = never). */
  evaluationTimestamp = 0;
  /** Seconds the last evaluation took. */
  evaluationSeconds = 0;

  constructor(readonly spec: RuleSpec) {}
  get name(): string { return this.spec.name; }
  /** The expression as Prometheus prints it (`Expr.String()`), used in the API and generator URLs. */
  abstract get query(): string;
  abstract eval(tMs: number, query: QueryFn, limit: number): Promise<Sample[]>;

  /** Identity used when a reload carries state over (`nameAndLabels` in Prometheus). */
  get identity(): string {
    return this.spec.kind + '\xff' + this.spec.name + '\xff' + this.spec.labels.map((l) => `${l.name}=${l.value}`).join(',');
  }

  /** Whether `other` is the same rule text (a reload then keeps the running group untouched). */
  sameAs(other: BaseRule): boolean {
    const a = this.spec, b = other.spec;
    return a.kind === b.kind && a.name === b.name && this.query === other.query && a.forMs === b.forMs
      && a.keepFiringForMs === b.keepFiringForMs && sameLabels(a.labels, b.labels) && sameLabels(a.annotations, b.annotations);
  }
}

function sameLabels(a: Labels, b: Labels): boolean {
  return a.length === b.length && a.every((l, i) => l.name === b[i].name && l.value === b[i].value);
}
