/**
 * Prometheus's own endpoints on the metrics port: `/-/healthy`, `/-/ready` (503 until start-up recovery
 * has finished), `/-/reload` and `/-/quit` (PUT/POST, refused unless `--web.enable-lifecycle`), and
 * Tessera's self-metrics at `/metrics`.
 */
import type { ServerContext } from '../context.ts';
import type { HttpResponse } from '../http.ts';
import type { Router } from '../router.ts';

export interface Lifecycle {
  isReady(): boolean;
  /** Applies the config file again; rejects (and keeps the old config) when it is bad. */
  reload(): Promise<void>;
  /** Starts a graceful shutdown after the reply has gone out. */
  quit(): void;
  /** `host:port` where this node's metrics API answers, once listening (the built-in self-scrape targets it). */
  selfAddress?(): string;
}

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8' };
const text = (status: number, body: string): HttpResponse => ({ status, headers: TEXT, body });

/**
 * `overloaded` is true while PromQL queries wait for a `--query.max-concurrency` slot: `/-/ready` then
 * answers 503 so a load balancer sends queries elsewhere, while `/-/healthy` stays 200 (the process is fine).
 */
export function registerLifecycleRoutes(router: Router, ctx: ServerContext, life: Lifecycle, overloaded: () => boolean = () => false): void {
  router.add(['GET', 'HEAD'], '/-/healthy', () => text(200, 'Prometheus Server is Healthy.\n'));
  router.add(['GET', 'HEAD'], '/-/ready', () =>
    life.isReady() && !overloaded() ? text(200, 'Prometheus Server is Ready.\n') : text(503, 'Service Unavailable'));

  ctx.metrics.gauge('prometheus_ready', 'Whether Prometheus startup was fully completed and the server is ready for normal operation.', [],
    () => [[[], life.isReady() ? 1 : 0]]);

  const lifecycleEnabled = ctx.flags['web.enable-lifecycle'];
  router.add(['PUT', 'POST'], '/-/reload', async () => {
    if (!lifecycleEnabled) return text(403, 'Lifecycle API is not enabled.');
    try {
      await life.reload();
      return text(200, '');
    } catch (err) {
      return text(500, `failed to reload config: ${(err as Error).message}\n`);
    }
  });
  router.add(['PUT', 'POST'], '/-/quit', () => {
    if (!lifecycleEnabled) return text(403, 'Lifecycle API is not enabled.');
    setImmediate(() => life.quit());
    return text(200, 'Requesting termination... Goodbye!');
  });

  router.add(['GET', 'HEAD'], '/metrics', async () => ({
    status: 200,
    headers: { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' },
    body: await ctx.metrics.collectAndRender(),
  }));
}
