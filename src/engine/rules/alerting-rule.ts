/**
 * An alerting rule with Prometheus 2.42's state machine (`rules/alerting.go`): each result element is an
 * alert identified by its labels (result labels minus `__name__`, plus the expanded rule labels and
 * `alertname`); it is pending until it has been active for `for`, then firing; when it disappears a
 * pending alert is dropped and a firing one becomes inactive ("resolved") and is kept 15 minutes so the
 * resolution is notified; `keep_firing_for` keeps a vanished firing alert firing for that long.
 * Evaluation returns the `ALERTS` and `ALERTS_FOR_STATE` samples, once the for-state has been restored.
 */
import { formatExpr } from '../promql/printer.ts';
import type { Sample } from '../promql/value.ts';
import type { Label, Labels } from '../tsdb/api.ts';
import { BaseRule, type QueryFn } from './rule.ts';
import { buildLabels, compareLabels, labelsKey, labelsToRecord } from '../tsdb/labels.ts';
import type { RuleSpec } from './rule-file.ts';
import { expandTemplate, type TemplateData, type TemplateQuery } from './template.ts';
import { parseExpr } from '../promql/parser.ts';

export type AlertState = 'inactive' | 'pending' | 'firing';
const STATE_RANK: Record<AlertState, number> = { inactive: 0, pending: 1, firing: 2 };

/** Times are ms since the epoch; 0 means "never" (Go's zero time). */
export interface Alert {
  labels: Label[];
  annotations: Label[];
  state: AlertState;
  value: number;
  activeAt: number;
  firedAt: number;
  resolvedAt: number;
  lastSentAt: number;
  validUntil: number;
  keepFiringSince: number;
}

export const RESOLVED_RETENTION_MS = 15 * 60_000;

export interface AlertContext { externalLabels: Labels; externalURL: string }

/** Receives alerts that need (re)sending, with the expression they came from. */
export type NotifyFn = (expr: string, alerts: Alert[]) => void;

export class AlertingRule extends BaseRule {
  private readonly printed = formatExpr(this.spec.expr);
  /** Active alerts by label-set key; includes resolved ones still being notified. */
  active = new Map<string, Alert>();
  /** False until the group restored the for-state; until then no ALERTS series are written. */
  restored: boolean;

  constructor(spec: RuleSpec, private readonly ctx: AlertContext, restored: boolean, private readonly warn: (msg: string) => void = () => {}) {
    super(spec);
    this.restored = restored;
  }

  get query(): string { return this.printed; }

  async eval(tMs: number, query: QueryFn, limit: number): Promise<Sample[]> {
    const res = await query(this.spec.expr, tMs);
    const current = new Map<string, Alert>();
    // Templates may run PromQL themselves (`query`), at the same evaluation time.
    const tplQuery: TemplateQuery = async (q) => (await query(parseExpr(q), tMs)).map((x) => ({ Labels: labelsToRecord(x.metric), Value: x.v }));
    for (const s of res) {
      const a = await this.newAlert(s, tMs, tplQuery);
      const k = labelsKey(a.labels);
      if (current.has(k)) throw new Error('vector contains metrics with the same labelset after applying alert labels');
      current.set(k, a);
    }
    for (const [k, a] of current) {
      const old = this.active.get(k);
      if (old && old.state !== 'inactive') { old.value = a.value; old.annotations = a.annotations; continue; }
      this.active.set(k, a);
    }
    const out: Sample[] = [];
    let numActive = 0;
    for (const [k, a] of this.active) {
      if (!current.has(k)) {
        let keepFiring = false;
        if (a.state === 'firing' && this.spec.keepFiringForMs > 0) {
          if (a.keepFiringSince === 0) a.keepFiringSince = tMs;
          if (tMs - a.keepFiringSince < this.spec.keepFiringForMs) keepFiring = true;
        }
        if (a.state === 'pending' || (a.resolvedAt !== 0 && tMs - a.resolvedAt > RESOLVED_RETENTION_MS)) this.active.delete(k);
        if (a.state !== 'inactive' && !keepFiring) { a.state = 'inactive'; a.resolvedAt = tMs; }
        if (!keepFiring) continue;
      } else {
        a.keepFiringSince = 0;
      }
      numActive++;
      if (a.state === 'pending' && tMs - a.activeAt >= this.spec.forMs) { a.state = 'firing'; a.firedAt = tMs; }
      if (this.restored) {
        out.push({ metric: this.seriesLabels(a, 'ALERTS', true), t: tMs, v: 1 });
        out.push({ metric: this.seriesLabels(a, 'ALERTS_FOR_STATE', false), t: tMs, v: Math.floor(a.activeAt / 1000) });
      }
    }
    if (limit > 0 && numActive > limit) {
      this.active = new Map();
      throw new Error(`exceeded limit of ${limit} with ${numActive} alerts`);
    }
    return out;
  }

  private async newAlert(s: Sample, tMs: number, tplQuery: TemplateQuery): Promise<Alert> {
    const data: TemplateData = {
      Labels: labelsToRecord(s.metric), ExternalLabels: labelsToRecord(this.ctx.externalLabels),
      ExternalURL: this.ctx.externalURL, Value: s.v,
    };
    const expand = async (i: number, kind: 'labelTemplates' | 'annotationTemplates'): Promise<string> => {
      try {
        return await expandTemplate(this.spec[kind][i], data, tplQuery);
      } catch (e) {
        this.warn(`Expanding alert template failed: ${(e as Error).message}`);
        return `<error expanding template: ${(e as Error).message}>`;
      }
    };
    const sets: [string, string][] = [];
    for (let i = 0; i < this.spec.labels.length; i++) sets.push([this.spec.labels[i].name, await expand(i, 'labelTemplates')]);
    sets.push(['alertname', this.spec.name]);
    const labels = buildLabels(s.metric, sets, ['__name__']);
    const annotations: Label[] = [];
    for (let i = 0; i < this.spec.annotations.length; i++) annotations.push({ name: this.spec.annotations[i].name, value: await expand(i, 'annotationTemplates') });
    return {
      labels, annotations, state: 'pending', value: s.v, activeAt: tMs,
      firedAt: 0, resolvedAt: 0, lastSentAt: 0, validUntil: 0, keepFiringSince: 0,
    };
  }

  /** `ALERTS{…, alertstate}` or `ALERTS_FOR_STATE{…}`: the rule's (raw) labels overlaid with the alert's. */
  seriesLabels(a: Alert, metric: 'ALERTS' | 'ALERTS_FOR_STATE', withState: boolean): Label[] {
    const sets: [string, string][] = a.labels.map((l) => [l.name, l.value]);
    sets.push(['__name__', metric], ['alertname', this.spec.name]);
    if (withState) sets.push(['alertstate', a.state]);
    return buildLabels(this.spec.labels, sets);
  }

  /** The most advanced state among the alerts. */
  state(): AlertState {
    let s: AlertState = 'inactive';
    for (const a of this.active.values()) if (STATE_RANK[a.state] > STATE_RANK[s]) s = a.state;
    return s;
  }

  /** Pending and firing alerts (not the resolved ones kept for notification), in label order. */
  activeAlerts(): Alert[] {
    return [...this.active.values()].filter((a) => a.resolvedAt === 0).sort((x, y) => compareLabels(x.labels, y.labels));
  }

  /** Sends firing and newly resolved alerts, and re-sends each at most every `resendDelayMs`. */
  sendAlerts(tMs: number, resendDelayMs: number, intervalMs: number, notify: NotifyFn): void {
    const batch: Alert[] = [];
    for (const a of this.active.values()) {
      if (!needsSending(a, tMs, resendDelayMs)) continue;
      a.lastSentAt = tMs;
      // Valid for two missed evaluations or sends, whichever is longer.
      a.validUntil = tMs + 4 * Math.max(resendDelayMs, intervalMs);
      batch.push({ ...a });
    }
    notify(this.query, batch);
  }
}

function needsSending(a: Alert, tMs: number, resendDelayMs: number): boolean {
  if (a.state === 'pending') return false;
  if (a.resolvedAt > a.lastSentAt) return true;
  return a.lastSentAt + resendDelayMs < tMs;
}

