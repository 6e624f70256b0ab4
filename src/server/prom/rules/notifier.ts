/**
 * Sends alerts to Alertmanager's v2 API (`POST <am>/api/v2/alerts`) as Prometheus's notifier does:
 * external labels added, `endsAt` set for firing alerts so they expire if we stop resending.
 */
import type { Alert } from '../../../engine/rules/alerting.ts';
import { rfc3339 } from './rules-json.ts';

export interface AlertmanagerTarget { url: string; timeoutMs: number }

/** Targets from the `alerting.alertmanagers` section (static_configs only). */
export function alertmanagerTargets(alerting: Record<string, unknown> | null): AlertmanagerTarget[] {
  const out: AlertmanagerTarget[] = [];
  const ams = (alerting?.alertmanagers ?? []) as Record<string, unknown>[];
  for (const am of ams) {
    const scheme = String(am.scheme ?? 'http');
    const prefix = String(am.path_prefix ?? '').replace(/\/$/, '');
    const timeoutMs = typeof am.timeout === 'string' ? parseTimeout(am.timeout) : 10_000;
    for (const sc of (am.static_configs ?? []) as { targets?: string[] }[]) {
      for (const t of sc.targets ?? []) out.push({ url: `${scheme}://${t}${prefix}/api/v2/alerts`, timeoutMs });
    }
  }
  return out;
}

function parseTimeout(s: string): number {
  const m = /^(\d+)(ms|s|m)$/.exec(s);
  if (!m) return 10_000;
  return Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 's' ? 1000 : 60_000);
}

export function alertPayload(alerts: Alert[], externalLabels: Record<string, string>, generatorURL: (a: Alert) => string): unknown[] {
  return alerts.map((a) => {
    const labels: Record<string, string> = { ...externalLabels };
    for (const l of a.labels) labels[l.name] = l.value;
    const annotations: Record<string, string> = {};
    for (const l of a.annotations) annotations[l.name] = l.value;
    return {
      labels, annotations, startsAt: rfc3339(a.firedAt || a.activeAt),
      endsAt: rfc3339(a.state === 'inactive' ? a.resolvedAt : a.validUntil), generatorURL: generatorURL(a),
    };
  });
}

/** Posts to every Alertmanager; failures are logged by the caller and do not stop rule evaluation. */
export async function sendAlerts(targets: AlertmanagerTarget[], payload: unknown[]): Promise<string[]> {
  const errors: string[] = [];
  await Promise.all(targets.map(async (t) => {
    try {
      const r = await fetch(t.url, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(payload),
        signal: AbortSignal.timeout(t.timeoutMs),
      });
      if (!r.ok) errors.push(`${t.url}: HTTP ${r.status}`);
      await r.arrayBuffer();
    } catch (e) {
      errors.push(`${t.url}: ${(e as Error).message}`);
    }
  }));
  return errors;
}
