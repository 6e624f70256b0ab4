/**
 * The outcome of the last configuration (re)load across every part of the metrics service — scrape,
 * remote write, rules, Alertmanager discovery — as Prometheus reports it: one failing part (a bad rule
 * file) makes the whole reload unsuccessful in `/api/v1/status/runtimeinfo` and
 * `prometheus_config_last_reload_successful`, whatever the other parts did.
 */
import type { ServerContext, ServiceHooks } from '../context.ts';

export class ReloadStatus {
  success = true;
  /** ms since the epoch of the last successful load, or 0 before the first. */
  lastSuccessMs = 0;
}

/** Wraps `hooks` so that start and reload record their outcome in `status` (and still throw). */
export function trackReloads(ctx: ServerContext, hooks: ServiceHooks, status: ReloadStatus): ServiceHooks {
  const tracked = (run: (() => Promise<void>) | undefined) => async (): Promise<void> => {
    try {
      await run?.();
    } catch (e) {
      status.success = false;
      throw e;
    }
    status.success = true;
    status.lastSuccessMs = ctx.now();
  };
  return { start: tracked(hooks.start), reload: tracked(hooks.reload), stopping: hooks.stopping, stop: hooks.stop };
}

export function registerReloadMetrics(ctx: ServerContext, status: ReloadStatus): void {
  ctx.metrics.gauge('prometheus_config_last_reload_successful', 'Whether the last configuration reload attempt was successful.', [],
    () => [[[], status.success ? 1 : 0]]);
  ctx.metrics.gauge('prometheus_config_last_reload_success_timestamp_seconds', 'Timestamp of the last successful configuration reload.', [],
    () => [[[], status.lastSuccessMs / 1000]]);
}
