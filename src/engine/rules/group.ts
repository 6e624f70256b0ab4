/**
 * A rule group (`rules/group.go` of 2.42): its rules evaluated in order at aligned timestamps every
 * `interval`, results appended to the TSDB, stale markers for series a rule stopped producing, alerts
 * handed to the notifier, and — for groups loaded at start-up — the `for` state of alerts restored from
 * `ALERTS_FOR_STATE` after the second evaluation.
 */
import { performance } from 'node:perf_hooks';
import type { FetchedSeries, Labels, Matcher } from '../tsdb/api.ts';
import { MATCH_EQUAL, newMatcher } from '../tsdb/api.ts';
import type { IngestSample } from '../scrape/sample-sink.ts';
import { isStaleNaN, STALE_NAN } from '../tsdb/api.ts';
import type { Clock } from './clock.ts';
import { AlertingRule, type NotifyFn } from './alerting-rule.ts';
import type { BaseRule, QueryFn } from './rule.ts';
import { labelsKey } from '../tsdb/labels.ts';

export type SelectFn = (matchers: Matcher[], mintMs: number, maxtMs: number) => Promise<FetchedSeries[]>;

/** What every group of a manager shares. */
export interface GroupEnv {
  query: QueryFn;
  append: (samples: IngestSample[]) => Promise<unknown>;
  /** Reads stored series (for restoring alert state); null skips restoring. */
  select: SelectFn | null;
  notify: NotifyFn;
  clock: Clock;
  resendDelayMs: number;
  outageToleranceMs: number;
  forGracePeriodMs: number;
  warn: (msg: string, fields?: Record<string, unknown>) => void;
  /** Each rule's evaluation and each group iteration, in seconds (`prometheus_rule_*_duration_seconds`). */
  observe?: { ruleEvaluated(seconds: number): void; groupEvaluated(seconds: number): void };
}

export interface GroupOptions { file: string; name: string; intervalMs: number; limit: number; rules: BaseRule[]; shouldRestore: boolean }

export class Group {
  readonly file: string;
  readonly name: string;
  readonly intervalMs: number;
  readonly limit: number;
  readonly rules: BaseRule[];
  /** Per rule: the series written by its last evaluation, by label-set key. */
  seriesInPreviousEval: Map<string, Labels>[];
  /** Series of rules that went away on reload, to be marked stale at the next evaluation. */
  staleSeries: Labels[] = [];
  evaluationSeconds = 0;
  /** Wall-clock ms when the last evaluation started (0 = never). */
  lastEvaluation = 0;
  /** Set when the group is removed by a reload: its series get stale markers when it stops. */
  markStale = false;
  /** Rule evaluations and failed ones, for `prometheus_rule_evaluations_total` / `_failures_total`. */
  evalTotal = 0;
  evalFailures = 0;
  /** Scheduled evaluations run and skipped, for `prometheus_rule_group_iterations_total` / `_missed_total`. */
  iterationsTotal = 0;
  iterationsMissed = 0;
  private shouldRestore: boolean;
  private iterations = 0;
  private cancel: (() => void) | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(o: GroupOptions, private readonly env: GroupEnv) {
    this.file = o.file; this.name = o.name; this.intervalMs = o.intervalMs; this.limit = o.limit; this.rules = o.rules;
    this.shouldRestore = o.shouldRestore;
    this.seriesInPreviousEval = o.rules.map(() => new Map());
  }

  get key(): string { return `${this.file};${this.name}`; }

  /** Same file, name, interval, limit and rules: a reload keeps such a group running untouched. */
  equals(o: Group): boolean {
    return this.file === o.file && this.name === o.name && this.intervalMs === o.intervalMs && this.limit === o.limit
      && this.rules.length === o.rules.length && this.rules.every((r, i) => r.sameAs(o.rules[i]));
  }

  /** First evaluation time: the next multiple of the interval, shifted by a per-group offset to spread load. */
  firstEvalTime(nowMs: number): number {
    const offset = fnv1a(this.key) % this.intervalMs;
    const adj = nowMs - offset;
    return adj - (((adj % this.intervalMs) + this.intervalMs) % this.intervalMs) + offset + this.intervalMs;
  }

  start(): void {
    this.stopped = false;
    this.schedule(this.firstEvalTime(this.env.clock.now()));
  }

  private schedule(at: number): void {
    this.cancel = this.env.clock.setTimer(at, () => this.tick(at));
  }

  private async tick(at: number): Promise<void> {
    if (this.stopped) return;
    // Skip iterations missed while the process was busy: evaluate at the newest due time.
    const missed = Math.max(0, Math.floor((this.env.clock.now() - at) / this.intervalMs));
    const ts = at + missed * this.intervalMs;
    this.iterationsMissed += missed;
    this.running = this.iterate(ts);
    await this.running;
    this.running = null;
    if (this.stopped) return;
    this.schedule(ts + this.intervalMs);
  }

  private async iterate(ts: number): Promise<void> {
    const start = this.env.clock.now();
    const t0 = performance.now();
    await this.eval(ts);
    this.evaluationSeconds = (performance.now() - t0) / 1000;
    this.env.observe?.groupEvaluated(this.evaluationSeconds);
    this.lastEvaluation = start;
    this.iterationsTotal++;
    // Restore only after a second evaluation, so recording rules the alerts depend on have fresh values.
    if (this.shouldRestore && ++this.iterations >= 2) {
      this.shouldRestore = false;
      await this.restoreForState(this.env.clock.now());
    }
  }

  /** Stops scheduling and waits for a running evaluation; marks the group's series stale when removed. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    if (this.running) await this.running;
    if (!this.markStale) return;
    const now = this.env.clock.now();
    const stale: IngestSample[] = [];
    for (const m of this.seriesInPreviousEval) for (const labels of m.values()) stale.push({ labels, t: now, v: STALE_NAN });
    for (const labels of this.staleSeries) stale.push({ labels, t: now, v: STALE_NAN });
    this.seriesInPreviousEval = this.rules.map(() => new Map());
    this.staleSeries = [];
    if (stale.length) await this.env.append(stale).catch((e) => this.env.warn('writing stale markers failed', { group: this.name, err: String(e) }));
  }

  /** Evaluates every rule at `ts` in order and writes the results. */
  async eval(ts: number): Promise<void> {
    for (let i = 0; i < this.rules.length && !this.stopped; i++) await this.evalRule(i, ts);
    if (this.staleSeries.length) {
      const stale = this.staleSeries.map((labels) => ({ labels, t: ts, v: STALE_NAN }));
      this.staleSeries = [];
      await this.env.append(stale).catch((e) => this.env.warn('writing stale markers failed', { group: this.name, err: String(e) }));
    }
  }

  private async evalRule(i: number, ts: number): Promise<void> {
    const rule = this.rules[i];
    rule.evaluationTimestamp = this.env.clock.now();
    const t0 = performance.now();
    this.evalTotal++;
    try {
      let vector;
      try {
        vector = await rule.eval(ts, this.env.query, this.limit);
      } catch (e) {
        rule.health = 'err';
        rule.lastError = (e as Error).message ?? String(e);
        this.evalFailures++;
        this.env.warn('Evaluating rule failed', { group: this.name, rule: rule.name, err: rule.lastError });
        return;
      }
      rule.health = 'ok';
      rule.lastError = null;
      if (rule instanceof AlertingRule) rule.sendAlerts(ts, this.env.resendDelayMs, this.intervalMs, this.env.notify);
      const returned = new Map<string, Labels>();
      const batch: IngestSample[] = [];
      for (const s of vector) {
        batch.push({ labels: s.metric, t: s.t, v: s.v });
        returned.set(labelsKey(s.metric), s.metric);
      }
      for (const [k, labels] of this.seriesInPreviousEval[i]) {
        if (!returned.has(k)) batch.push({ labels, t: ts, v: STALE_NAN });
      }
      if (batch.length) {
        let err: string | null = null;
        try {
          err = appendError(await this.env.append(batch));
        } catch (e) {
          err = (e as Error).message ?? String(e);
        }
        if (err !== null) {
          rule.health = 'err';
          rule.lastError = err;
          this.env.warn('Rule sample appending failed', { group: this.name, rule: rule.name, err });
        }
      }
      this.seriesInPreviousEval[i] = returned;
    } finally {
      rule.evaluationSeconds = (performance.now() - t0) / 1000;
      this.env.observe?.ruleEvaluated(rule.evaluationSeconds);
    }
  }

  /** Takes over the state of the group this one replaces on reload (`Group.CopyState`). */
  copyState(from: Group): void {
    this.evaluationSeconds = from.evaluationSeconds;
    this.lastEvaluation = from.lastEvaluation;
    const byIdentity = new Map<string, number[]>();
    from.rules.forEach((r, fi) => { const l = byIdentity.get(r.identity) ?? []; l.push(fi); byIdentity.set(r.identity, l); });
    this.rules.forEach((rule, i) => {
      const idx = byIdentity.get(rule.identity);
      if (!idx || idx.length === 0) return;
      const fi = idx.shift()!;
      this.seriesInPreviousEval[i] = from.seriesInPreviousEval[fi];
      const old = from.rules[fi];
      if (rule instanceof AlertingRule && old instanceof AlertingRule) for (const [k, a] of old.active) rule.active.set(k, a);
    });
    this.staleSeries = [...from.staleSeries];
    from.rules.forEach((r, fi) => {
      if ((byIdentity.get(r.identity)?.length ?? 0) > 0 && byIdentity.get(r.identity)!.includes(fi)) {
        for (const labels of from.seriesInPreviousEval[fi].values()) this.staleSeries.push(labels);
      }
    });
  }

  /** Restores `activeAt` of pending/firing alerts from the last `ALERTS_FOR_STATE` sample (2.42's rules). */
  async restoreForState(ts: number): Promise<void> {
    for (const rule of this.rules) {
      if (!(rule instanceof AlertingRule)) continue;
      if (!this.env.select || rule.spec.forMs < this.env.forGracePeriodMs) { rule.restored = true; continue; }
      for (const a of rule.active.values()) {
        const labels = rule.seriesLabels(a, 'ALERTS_FOR_STATE', false);
        const matchers = labels.map((l) => newMatcher(MATCH_EQUAL, l.name, l.value));
        let series: FetchedSeries[];
        try {
          series = await this.env.select(matchers, ts - this.env.outageToleranceMs, ts);
        } catch (e) {
          this.env.warn('Failed to restore for-state', { group: this.name, alert: rule.name, err: String(e) });
          continue;
        }
        const s = series.find((x) => x.labels.length === labels.length && x.t.length > 0);
        if (!s) continue;
        const n = s.t.length - 1;
        if (isStaleNaN(s.v[n])) continue;
        a.activeAt = this.restoredActiveAt(rule.spec.forMs, Math.floor(s.t[n] / 1000) * 1000, Math.trunc(s.v[n]) * 1000, ts);
      }
      rule.restored = true;
    }
  }

  private restoredActiveAt(forMs: number, downAt: number, activeAt: number, ts: number): number {
    const remaining = forMs - (downAt - activeAt);
    if (remaining <= 0) return activeAt; // it was firing when we went down; the next evaluation fires it again
    if (remaining < this.env.forGracePeriodMs) return ts + this.env.forGracePeriodMs - forMs;
    return activeAt + (ts - downAt);
  }
}

/**
 * A store may accept a batch but refuse some samples (out of order, duplicate, out of bounds) and report
 * that in its reply (`{firstError}`) instead of throwing; Prometheus marks the rule unhealthy either way.
 */
function appendError(reply: unknown): string | null {
  const first = (reply as { firstError?: unknown } | null)?.firstError;
  return typeof first === 'string' && first !== '' ? first : null;
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
  return h;
}
