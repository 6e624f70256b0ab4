/**
 * Sends alerts to Alertmanagers over their v2 API (`POST <scheme>://<host><path_prefix>/api/v2/alerts`),
 * after Prometheus's notifier: external labels are added (alert labels win), `alert_relabel_configs`
 * applied, alerts queued (oldest dropped past the capacity) and sent in batches of 64 to every
 * Alertmanager concurrently. Prometheus relies on re-sending every `resend-delay`; on top of that a
 * failed batch is retried a couple of times with backoff (Alertmanager de-duplicates).
 */
import type { Label, Labels } from '../tsdb/api.ts';
import { relabel, type RelabelRule } from '../scrape/relabel.ts';
import type { Alert } from './alerting-rule.ts';
import { labelsToRecord } from '../tsdb/labels.ts';

export interface NotifierAlert { labels: Label[]; annotations: Label[]; startsAt: number; endsAt: number; generatorURL: string }

export interface AlertmanagerSet {
  /** Full `/api/v2/alerts` URLs. */
  urls: string[];
  timeoutMs: number;
  /** The configured authentication, resolved per request (credential files may change). */
  authHeaders(): Promise<Record<string, string>>;
}

export type PostJson = (url: string, body: string, headers: Record<string, string>, timeoutMs: number) => Promise<{ status: number; text: string }>;

export interface NotifierOptions {
  queueCapacity: number;
  post: PostJson;
  warn: (msg: string, fields?: Record<string, unknown>) => void;
  /** Extra attempts for a failed batch, and the first backoff (doubled each time). */
  retries?: number;
  backoffMs?: number;
}

export const MAX_BATCH = 64;

export class Notifier {
  private queue: NotifierAlert[] = [];
  private sets: AlertmanagerSet[] = [];
  private externalLabels: Labels = [];
  private relabelRules: RelabelRule[] = [];
  private loop: Promise<void> | null = null;
  readonly stats = { sent: 0, errors: 0, dropped: 0 };

  constructor(private readonly opts: NotifierOptions) {}

  configure(sets: AlertmanagerSet[], externalLabels: Labels, relabelRules: RelabelRule[]): void {
    this.sets = sets; this.externalLabels = externalLabels; this.relabelRules = relabelRules;
  }

  alertmanagerUrls(): string[] { return this.sets.flatMap((s) => s.urls); }

  queueLength(): number { return this.queue.length; }

  /** Queues alerts (after external labels and relabelling) and starts sending. */
  send(alerts: NotifierAlert[]): void {
    for (const a of alerts) {
      const withExt = [...a.labels];
      for (const l of this.externalLabels) if (!withExt.some((x) => x.name === l.name)) withExt.push(l);
      withExt.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
      const labels = this.relabelRules.length ? relabel(withExt, this.relabelRules) : withExt;
      if (!labels || labels.length === 0) continue;
      this.queue.push({ ...a, labels });
    }
    if (this.queue.length > this.opts.queueCapacity) {
      const drop = this.queue.length - this.opts.queueCapacity;
      this.queue.splice(0, drop);
      this.stats.dropped += drop;
      this.opts.warn('Alert notification queue full, dropping alerts', { num_dropped: drop });
    }
    this.loop ??= this.drain().finally(() => { this.loop = null; });
  }

  /** Resolves when everything queued so far has been attempted. */
  async flush(): Promise<void> { while (this.loop) await this.loop; }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      if (this.sets.length === 0) continue;
      const body = JSON.stringify(batch.map(toPostable));
      await Promise.all(this.sets.flatMap((s) => s.urls.map((u) => this.post(s, u, body, batch.length))));
    }
  }

  private async post(set: AlertmanagerSet, url: string, body: string, n: number): Promise<void> {
    const retries = this.opts.retries ?? 2;
    let backoff = this.opts.backoffMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      let err: string;
      try {
        const r = await this.opts.post(url, body, { 'Content-Type': 'application/json', ...await set.authHeaders() }, set.timeoutMs);
        if (r.status >= 200 && r.status < 300) { this.stats.sent += n; return; }
        err = `bad response status ${r.status}`;
        if (r.status < 500 && r.status !== 429) attempt = retries; // a client error does not get better by retrying
      } catch (e) {
        err = (e as Error).message;
      }
      if (attempt >= retries) {
        this.stats.errors += n;
        this.opts.warn('Error sending alert', { alertmanager: url, count: n, err });
        return;
      }
      await new Promise((r) => setTimeout(r, backoff));
      backoff *= 2;
    }
  }
}

/** Alertmanager v2 `PostableAlert`; times as strfmt.DateTime (RFC 3339 with milliseconds). */
function toPostable(a: NotifierAlert): Record<string, unknown> {
  return {
    annotations: labelsToRecord(a.annotations), endsAt: dateTime(a.endsAt), startsAt: dateTime(a.startsAt),
    generatorURL: a.generatorURL, labels: labelsToRecord(a.labels),
  };
}

export function dateTime(ms: number): string {
  return ms === 0 ? '0001-01-01T00:00:00.000Z' : new Date(ms).toISOString();
}

/** Rule alerts → notifier alerts (`sendAlerts` in Prometheus's main.go). */
export function toNotifierAlerts(expr: string, alerts: Alert[], externalURL: string): NotifierAlert[] {
  const generatorURL = `${externalURL}/graph?g0.expr=${goQueryEscape(expr)}&g0.tab=1`;
  return alerts.map((a) => ({
    labels: a.labels, annotations: a.annotations, startsAt: a.firedAt,
    endsAt: a.resolvedAt !== 0 ? a.resolvedAt : a.validUntil, generatorURL,
  }));
}

/** Go's `url.QueryEscape`. */
export function goQueryEscape(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()).replace(/%20/g, '+');
}

/** POST over fetch with a timeout. */
export const fetchPostJson: PostJson = async (url, body, headers, timeoutMs) => {
  const r = await fetch(url, { method: 'POST', body, headers, signal: AbortSignal.timeout(timeoutMs) });
  return { status: r.status, text: await r.text() };
};
