/** JSON shapes of `/api/v1/rules` and `/api/v1/alerts` (Prometheus 2.42 `web/api/v1/api.go`). */
import type { Labels } from '../../../engine/tsdb/api.ts';
import type { Alert } from '../../../engine/rules/alerting.ts';
import { AlertingRule } from '../../../engine/rules/alerting.ts';
import type { RuleGroup } from '../../../engine/rules/group.ts';
import { formatExpr } from '../../../engine/promql/index.ts';

/** Go's RFC3339Nano from ms: trailing zeros of the fraction trimmed; the zero time when never set. */
export function rfc3339(ms: number): string {
  if (ms === 0) return '0001-01-01T00:00:00Z';
  const iso = new Date(ms).toISOString();
  return iso.replace(/\.(\d{3})Z$/, (_, f: string) => (f === '000' ? 'Z' : `.${f.replace(/0+$/, '')}Z`));
}

/** Go's `strconv.FormatFloat(v, 'e', -1, 64)`: `1e+00`, `2.5e-01`. */
export function formatE(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  const [m, e] = v.toExponential().split('e');
  const n = Number(e);
  return `${m}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
}

function labelsObj(ls: Labels): Record<string, string> {
  const o: Record<string, string> = {};
  for (const l of ls) o[l.name] = l.value;
  return o;
}

function sortedObj(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
}

export function alertJson(a: Alert): unknown {
  return { labels: labelsObj(a.labels), annotations: labelsObj(a.annotations), state: a.state, activeAt: rfc3339(a.activeAt), value: formatE(a.value) };
}

function activeAlerts(r: AlertingRule): Alert[] {
  return [...r.active.values()].filter((a) => a.state !== 'inactive');
}

export function groupsJson(groups: RuleGroup[], type: string): unknown {
  return {
    groups: groups.map((g) => ({
      name: g.def.name, file: g.def.file,
      rules: g.rules.filter((r) => type === '' || (type === 'alert') === (r instanceof AlertingRule)).map((r) => {
        const common = {
          health: r.status.health, ...(r.status.lastError ? { lastError: r.status.lastError } : {}),
          evaluationTime: r.status.evalSeconds, lastEvaluation: rfc3339(r.status.lastEvalMs),
        };
        if (r instanceof AlertingRule) {
          return {
            state: r.state(), name: r.def.name, query: formatExpr(r.def.expr), duration: r.def.forMs / 1000,
            keepFiringFor: r.def.keepFiringForMs / 1000, labels: sortedObj(r.def.labels), annotations: sortedObj(r.def.annotations),
            alerts: activeAlerts(r).map(alertJson), ...common, type: 'alerting',
          };
        }
        return { name: r.def.name, query: formatExpr(r.def.expr), ...(Object.keys(r.def.labels).length ? { labels: sortedObj(r.def.labels) } : {}), ...common, type: 'recording' };
      }),
      interval: g.def.intervalMs / 1000, limit: g.def.limit, evaluationTime: g.evalSeconds, lastEvaluation: rfc3339(g.lastEvalMs),
    })),
  };
}

export function alertsJson(groups: RuleGroup[]): unknown {
  const alerts: unknown[] = [];
  for (const g of groups) for (const r of g.rules) if (r instanceof AlertingRule) for (const a of activeAlerts(r)) alerts.push(alertJson(a));
  return { alerts };
}
