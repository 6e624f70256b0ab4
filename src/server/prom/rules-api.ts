/**
 * Wire shapes of `/api/v1/rules`, `/api/v1/alerts` and `/api/v1/alertmanagers` as Prometheus 2.42 writes
 * them (`web/api/v1/api.go`): field order, `labels` as objects, alert values as Go's `%e` (`1e+00`),
 * durations and evaluation times in float seconds, times as RFC 3339 (Go's zero time when never).
 */
import type { Group } from '../../engine/rules/group.ts';
import type { RuleManager } from '../../engine/rules/manager.ts';
import { AlertingRule, type Alert } from '../../engine/rules/alerting-rule.ts';
import { RecordingRule } from '../../engine/rules/recording-rule.ts';
import { labelsToRecord } from '../../engine/tsdb/labels.ts';
import { goE } from '../../engine/rules/go-format.ts';
import { rfc3339 } from './targets-api.ts';
import type { HttpResponse } from '../http.ts';

export type RuleTypeFilter = '' | 'alert' | 'record';

/** Go's `Duration.Seconds()` carries nanosecond resolution; round so float noise does not show. */
const secs = (v: number): number => Math.round(v * 1e9) / 1e9;

function alertJson(a: Alert): Record<string, unknown> {
  return {
    labels: labelsToRecord(a.labels), annotations: labelsToRecord(a.annotations), state: a.state,
    activeAt: rfc3339(a.activeAt), ...(a.keepFiringSince !== 0 ? { keepFiringSince: rfc3339(a.keepFiringSince) } : {}),
    value: goE(a.value, -1),
  };
}

function alertingRuleJson(r: AlertingRule): Record<string, unknown> {
  return {
    state: r.state(), name: r.name, query: r.query, duration: r.spec.forMs / 1000, keepFiringFor: r.spec.keepFiringForMs / 1000,
    labels: labelsToRecord(r.spec.labels), annotations: labelsToRecord(r.spec.annotations),
    alerts: r.activeAlerts().map(alertJson), health: r.health,
    ...(r.lastError ? { lastError: r.lastError } : {}),
    evaluationTime: secs(r.evaluationSeconds), lastEvaluation: rfc3339(r.evaluationTimestamp), type: 'alerting',
  };
}

function recordingRuleJson(r: RecordingRule): Record<string, unknown> {
  return {
    name: r.name, query: r.query,
    ...(r.spec.labels.length ? { labels: labelsToRecord(r.spec.labels) } : {}),
    health: r.health, ...(r.lastError ? { lastError: r.lastError } : {}),
    evaluationTime: secs(r.evaluationSeconds), lastEvaluation: rfc3339(r.evaluationTimestamp), type: 'recording',
  };
}

function groupJson(g: Group, filter: RuleTypeFilter): Record<string, unknown> {
  const rules: Record<string, unknown>[] = [];
  for (const r of g.rules) {
    if (r instanceof AlertingRule && filter !== 'record') rules.push(alertingRuleJson(r));
    else if (r instanceof RecordingRule && filter !== 'alert') rules.push(recordingRuleJson(r));
  }
  return {
    name: g.name, file: g.file, rules, interval: g.intervalMs / 1000, limit: g.limit,
    evaluationTime: secs(g.evaluationSeconds), lastEvaluation: rfc3339(g.lastEvaluation),
  };
}

export function rulesBody(m: RuleManager, filter: RuleTypeFilter): unknown {
  return { groups: m.ruleGroups().map((g) => groupJson(g, filter)) };
}

export function alertsBody(m: RuleManager): unknown {
  return { alerts: m.alertingRules().flatMap((r) => r.activeAlerts().map(alertJson)) };
}

/**
 * The success envelope as Go's encoding/json writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped
 * (rule queries such as `x > 1` read `x \u003e 1` on the wire).
 */
export function goJsonSuccess(data: unknown): HttpResponse {
  const body = JSON.stringify({ status: 'success', data }).replace(/[<>&\u2028\u2029]/g,
    (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  return { status: 200, headers: { 'Content-Type': 'application/json' }, body };
}

export function alertmanagersBody(active: string[], dropped: string[]): unknown {
  return { activeAlertmanagers: active.map((url) => ({ url })), droppedAlertmanagers: dropped.map((url) => ({ url })) };
}
