/**
 * One rule group's evaluation: rules run in order at the group's timestamp, their samples are written
 * back, and series a rule produced last time but not this time get a stale marker, as in Prometheus.
 */
import { labelsKey } from '../promql/labels.ts';
import { staleNaN } from '../promql/value.ts';
import type { GroupDef } from './rule-file.ts';
import { AlertingRule, RecordingRule } from './alerting.ts';
import type { RuleQuery, RuleSample } from './alerting.ts';
import type { Labels } from '../tsdb/api.ts';

/** A sample to append; `stale` marks a staleness marker (its value is StaleNaN, flagged so no copy can lose the payload). */
export interface WrittenSample { labels: Labels; t: number; v: number; stale: boolean }

export class RuleGroup {
  readonly rules: (RecordingRule | AlertingRule)[];
  lastEvalMs = 0;
  evalSeconds = 0;
  private previous: Map<string, Labels>[];

  constructor(readonly def: GroupDef, externalLabels: Record<string, string>, externalURL: string) {
    this.rules = def.rules.map((r) => (r.kind === 'recording' ? new RecordingRule(r) : new AlertingRule(r, externalLabels, externalURL)));
    this.previous = this.rules.map(() => new Map());
  }

  get key(): string { return `${this.def.file};${this.def.name}`; }

  /** Evaluates every rule at `tMs`; returns the samples to append (results and stale markers). */
  async eval(tMs: number, query: RuleQuery): Promise<WrittenSample[]> {
    const started = performance.now();
    const out: WrittenSample[] = [];
    for (let i = 0; i < this.rules.length; i++) {
      const rule = this.rules[i];
      const t0 = performance.now();
      let samples: RuleSample[] = [];
      try {
        samples = await rule.eval(tMs, query);
        if (this.def.limit > 0 && samples.length > this.def.limit * (rule instanceof AlertingRule ? 2 : 1)) {
          throw new Error(`exceeded limit of ${this.def.limit} with ${rule instanceof AlertingRule ? samples.length / 2 : samples.length} ${rule instanceof AlertingRule ? 'alerts' : 'series'}`);
        }
        rule.status.health = 'ok'; rule.status.lastError = '';
      } catch (e) {
        samples = [];
        rule.status.health = 'err'; rule.status.lastError = (e as Error).message;
      }
      rule.status.lastEvalMs = tMs;
      rule.status.evalSeconds = (performance.now() - t0) / 1000;
      const now = new Map<string, Labels>();
      for (const s of samples) { now.set(labelsKey(s.labels), s.labels); out.push({ labels: s.labels, t: tMs, v: s.v, stale: false }); }
      for (const [k, ls] of this.previous[i]) if (!now.has(k)) out.push({ labels: ls, t: tMs, v: staleNaN(), stale: true });
      this.previous[i] = now;
    }
    this.lastEvalMs = tMs;
    this.evalSeconds = (performance.now() - started) / 1000;
    return out;
  }
}
