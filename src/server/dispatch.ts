/**
 * Turns a Router into an HTTP handler for one API: routes the request, answers unmatched ones with the
 * API's own not-found / method-not-allowed replies, maps anything thrown through the API's error mapper,
 * and records request counts and latencies by API and route pattern.
 */
import type { Handler, HttpRequest, HttpResponse } from './http.ts';
import type { Router } from './router.ts';
import type { Counter, Histogram, HistogramSeries } from './self-metrics.ts';
import { bodyLength } from './reply-body.ts';

export interface ApiFallbacks {
  notFound(req: HttpRequest): HttpResponse;
  methodNotAllowed(req: HttpRequest, allowed: string[]): HttpResponse;
  error(err: unknown, req: HttpRequest): HttpResponse;
}

/**
 * `byHandler`, given for the metrics API, records Prometheus's own `prometheus_http_requests_total{code,handler}`,
 * `prometheus_http_request_duration_seconds{handler}` and `prometheus_http_response_size_bytes{handler}` as well,
 * for its standard dashboards. The size is the body as the handler made it (compressed when it compressed it).
 */
export interface RequestMetrics { requests: Counter; latency: Histogram; byHandler?: { requests: Counter; latency: Histogram; size: Histogram } }

export function dispatcher(api: string, router: Router, fallbacks: ApiFallbacks, m: RequestMetrics): Handler {
  const record = recorder(m, api);
  return (req) => {
    const started = performance.now();
    const match = router.match(req.method, req.path);
    if (match.kind !== 'found') {
      const res = match.kind === 'not-found' ? fallbacks.notFound(req) : fallbacks.methodNotAllowed(req, match.allowed);
      record('(unmatched)', res, started);
      return res;
    }
    const done = (res: HttpResponse): HttpResponse => { record(match.pattern, res, started); return res; };
    const fail = (err: unknown): HttpResponse => done(fallbacks.error(err, req));
    try {
      const out = match.handler(req, match.params);
      return out instanceof Promise ? out.then(done, fail) : done(out);
    } catch (err) {
      return fail(err);
    }
  };
}

/** The series one (route, status) pair records into. */
interface Bound {
  requests: { value: number }; latency: HistogramSeries;
  handlerRequests: { value: number } | null; handlerLatency: HistogramSeries | null; handlerSize: HistogramSeries | null;
}

/**
 * Records a request's count and latency. The series of each (route pattern, status) are looked up once and
 * kept: joining and hashing the label key per request showed on the HTTP thread under load. Patterns and
 * statuses are few (the registered routes), so the cache stays small.
 */
function recorder(m: RequestMetrics, api: string): (route: string, res: HttpResponse, started: number) => void {
  const bound = new Map<string, Map<number, Bound>>();
  const bind = (route: string, status: number): Bound => {
    const code = String(status);
    return {
      requests: m.requests.seriesOf([api, route, code]), latency: m.latency.seriesOf([api, route]),
      handlerRequests: m.byHandler ? m.byHandler.requests.seriesOf([code, route]) : null,
      handlerLatency: m.byHandler ? m.byHandler.latency.seriesOf([route]) : null,
      handlerSize: m.byHandler ? m.byHandler.size.seriesOf([route]) : null,
    };
  };
  return (route, res, started) => {
    const sec = (performance.now() - started) / 1000;
    const status = res.status;
    let byStatus = bound.get(route);
    if (!byStatus) { byStatus = new Map(); bound.set(route, byStatus); }
    let b = byStatus.get(status);
    if (!b) { b = bind(route, status); byStatus.set(status, b); }
    b.requests.value++;
    m.latency.observeSeries(b.latency, sec);
    if (b.handlerRequests !== null) {
      b.handlerRequests.value++;
      m.byHandler!.latency.observeSeries(b.handlerLatency!, sec);
      m.byHandler!.size.observeSeries(b.handlerSize!, res.body === undefined ? 0 : bodyLength(res.body));
    }
  };
}
