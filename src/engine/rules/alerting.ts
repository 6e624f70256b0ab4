/**
 * Alerting and recording rules with Prometheus 2.42's semantics (`rules/alerting.go`, `rules/recording.go`):
 * pending → firing after `for`, `keep_firing_for`, resolved alerts kept 15 m for the notifier, the
 * `ALERTS`/`ALERTS_FOR_STATE` series, templated labels and annotations.
 */
import type { Labels } from '../tsdb/api.ts';
import { labelsKey, setLabel, dropMetricName, labelsFromObject } from '../promql/labels.ts';
import type { RuleDef } from './rule-file.ts';
import { expandTemplate } from './template.ts';

export interface RuleSample { labels: Labels; v: number }
/** Evaluates a rule expression at `tMs` as an instant query; a scalar comes back as one sample with no labels. */
export type RuleQuery = (rule: RuleDef, tMs: number) => Promise<RuleSample[]>;

export type AlertStateName = 'inactive' | 'pending' | 'firing';
export interface Alert {
  labels: Labels; annotations: Labels; state: AlertStateName; value: number;
  activeAt: number; firedAt: number; resolvedAt: number; lastSentAt: number; keepFiringSince: number; validUntil: number;
}

const RESOLVED_RETENTION_MS = 15 * 60_000;

export interface RuleStatus { health: 'ok' | 'err' | 'unknown'; lastError: string; lastEvalMs: number; evalSeconds: number }

export class RecordingRule {
  readonly status: RuleStatus = { health: 'unknown', lastError: '', lastEvalMs: 0, evalSeconds: 0 };
  constructor(readonly def: RuleDef) {}

  async eval(tMs: number, query: RuleQuery): Promise<RuleSample[]> {
    const res = await query(this.def, tMs);
    const out: RuleSample[] = [];
    const seen = new Set<string>();
    for (const s of res) {
      let ls = setLabel(s.labels, '__name__', this.def.name);
      for (const [k, v] of Object.entries(this.def.labels)) ls = setLabel(ls, k, v);
      const k = labelsKey(ls);
      if (seen.has(k)) throw new Error('vector contains metrics with the same labelset after applying rule labels');
      seen.add(k);
      out.push({ labels: ls, v: s.v });
    }
    return out;
  }
}

export class AlertingRule {
  readonly status: RuleStatus = { health: 'unknown', lastError: '', lastEvalMs: 0, evalSeconds: 0 };
  readonly active = new Map<string, Alert>();
  constructor(readonly def: RuleDef, private readonly externalLabels: Record<string, string>, private readonly externalURL: string) {}

  private expand(text: string, labels: Labels, value: number): string {
    const l: Record<string, string> = {};
    for (const x of labels) l[x.name] = x.value;
    return expandTemplate(text, { labels: l, externalLabels: this.externalLabels, externalURL: this.externalURL, value });
  }

  async eval(tMs: number, query: RuleQuery): Promise<RuleSample[]> {
    const res = await query(this.def, tMs);
    const current = new Map<string, Alert>();
    for (const s of res) {
      let ls = dropMetricName(s.labels);
      for (const [k, v] of Object.entries(this.def.labels)) ls = setLabel(ls, k, this.expand(v, s.labels, s.v));
      ls = setLabel(ls, 'alertname', this.def.name);
      const annotations = labelsFromObject(Object.fromEntries(Object.entries(this.def.annotations).map(([k, v]) => [k, this.expand(v, s.labels, s.v)])));
      const k = labelsKey(ls);
      if (current.has(k)) throw new Error('vector contains metrics with the same labelset after applying alert labels');
      current.set(k, { labels: ls, annotations, state: 'pending', value: s.v, activeAt: tMs, firedAt: 0, resolvedAt: 0, lastSentAt: 0, keepFiringSince: 0, validUntil: 0 });
    }
    for (const [k, a] of current) {
      const old = this.active.get(k);
      if (old && old.state !== 'inactive') { old.value = a.value; old.annotations = a.annotations; continue; }
      this.active.set(k, a);
    }
    const out: RuleSample[] = [];
    for (const [k, a] of this.active) {
      let keepFiring = false;
      if (!current.has(k)) {
        if (a.state === 'firing' && this.def.keepFiringForMs > 0) {
          if (a.keepFiringSince === 0) a.keepFiringSince = tMs;
          if (tMs - a.keepFiringSince < this.def.keepFiringForMs) keepFiring = true;
        }
        if (a.state === 'pending' || (a.resolvedAt !== 0 && tMs - a.resolvedAt > RESOLVED_RETENTION_MS)) this.active.delete(k);
        if (a.state !== 'inactive' && !keepFiring) { a.state = 'inactive'; a.resolvedAt = tMs; }
        if (!keepFiring) continue;
      } else {
        a.keepFiringSince = 0;
      }
      if (a.state === 'pending' && tMs - a.activeAt >= this.def.forMs) { a.state = 'firing'; a.firedAt = tMs; }
      out.push({ labels: setLabel(setLabel(a.labels, '__name__', 'ALERTS'), 'alertstate', a.state), v: 1 });
      out.push({ labels: setLabel(a.labels, '__name__', 'ALERTS_FOR_STATE'), v: Math.floor(a.activeAt / 1000) });
    }
    return out;
  }

  /** The rule's state for the API: the most severe state of its alerts. */
  state(): AlertStateName {
    let s: AlertStateName = 'inactive';
    for (const a of this.active.values()) {
      if (a.state === 'firing') return 'firing';
      if (a.state === 'pending') s = 'pending';
    }
    return s;
  }

  /** Alerts to (re)send to Alertmanager now, as Prometheus's `needsSending` decides. */
  toSend(tMs: number, resendDelayMs: number, intervalMs: number): Alert[] {
    const out: Alert[] = [];
    for (const a of this.active.values()) {
      if (a.state === 'pending') continue;
      const resolvedSinceSent = a.resolvedAt > a.lastSentAt;
      if (!resolvedSinceSent && a.lastSentAt + resendDelayMs >= tMs) continue;
      a.lastSentAt = tMs;
      a.validUntil = tMs + 4 * Math.max(resendDelayMs, intervalMs);
      out.push(a);
    }
    return out;
  }
}
