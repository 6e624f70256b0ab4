/**
 * Turns a Router into an HTTP handler for one API: routes the request, answers unmatched ones with the
 * API's own not-found / method-not-allowed replies, maps anything thrown through the API's error mapper,
 * and records request counts and latencies by API and route pattern.
 */
import type { Handler, HttpRequest, HttpResponse } from './http.ts';
import type { Router } from './router.ts';
import type { Counter, Histogram } from './self-metrics.ts';

export interface ApiFallbacks {
  notFound(req: HttpRequest): HttpResponse;
  methodNotAllowed(req: HttpRequest, allowed: string[]): HttpResponse;
  error(err: unknown, req: HttpRequest): HttpResponse;
}

/**
 * `byHandler`, given for the metrics API, records Prometheus's own `prometheus_http_requests_total{code,handler}`
 * and `prometheus_http_request_duration_seconds{handler}` as well, for its standard dashboards.
 */
export interface RequestMetrics { requests: Counter; latency: Histogram; byHandler?: { requests: Counter; latency: Histogram } }

export function dispatcher(api: string, router: Router, fallbacks: ApiFallbacks, m: RequestMetrics): Handler {
  return (req) => {
    const started = performance.now();
    const match = router.match(req.method, req.path);
    if (match.kind !== 'found') {
      const res = match.kind === 'not-found' ? fallbacks.notFound(req) : fallbacks.methodNotAllowed(req, match.allowed);
      record(m, api, '(unmatched)', res.status, started);
      return res;
    }
    const done = (res: HttpResponse): HttpResponse => { record(m, api, match.pattern, res.status, started); return res; };
    const fail = (err: unknown): HttpResponse => done(fallbacks.error(err, req));
    try {
      const out = match.handler(req, match.params);
      return out instanceof Promise ? out.then(done, fail) : done(out);
    } catch (err) {
      return fail(err);
    }
  };
}

function record(m: RequestMetrics, api: string, route: string, status: number, started: number): void {
  const sec = (performance.now() - started) / 1000;
  m.requests.inc([api, route, String(status)]);
  m.latency.observe([api, route], sec);
  if (m.byHandler) {
    m.byHandler.requests.inc([String(status), route]);
    m.byHandler.latency.observe([route], sec);
  }
}
