/**
 * A recording rule: evaluates its expression and renames the result to the record name with the rule's
 * labels applied (`rules/recording.go`); the group writes the samples back to the TSDB.
 */
import { formatExpr } from '../promql/printer.ts';
import type { Sample } from '../promql/value.ts';
import { BaseRule, type QueryFn } from './rule.ts';
import { buildLabels, labelsKey } from '../tsdb/labels.ts';

export class RecordingRule extends BaseRule {
  private readonly printed = formatExpr(this.spec.expr);
  get query(): string { return this.printed; }

  async eval(tMs: number, query: QueryFn, limit: number): Promise<Sample[]> {
    const vec = await query(this.spec.expr, tMs);
    const sets: [string, string][] = [['__name__', this.spec.name], ...this.spec.labels.map((l) => [l.name, l.value] as [string, string])];
    const out: Sample[] = new Array(vec.length);
    const seen = new Set<string>();
    for (let i = 0; i < vec.length; i++) {
      const metric = buildLabels(vec[i].metric, sets);
      const k = labelsKey(metric);
      if (seen.has(k)) throw new Error('vector contains metrics with the same labelset after applying rule labels');
      seen.add(k);
      out[i] = { metric, t: tMs, v: vec[i].v };
    }
    if (limit > 0 && out.length > limit) throw new Error(`exceeded limit of ${limit} with ${out.length} series`);
    return out;
  }
}
