/**
 * The PromQL benchmark list (the issue 6 anchors and metadata endpoints) over the data set's metric names, with
 * ranges ending at `end` (Unix seconds) and starting at `start` (6 h before it in dataset.ts), and how a peer is
 * asked and compared. Shared by vs-prometheus.ts and bench/tsdb/restart-30d.ts.
 */

/** Query name and parameters; the key `path` picks a metadata route instead of `/api/v1/query[_range]`. */
export function benchQueries(start: number, end: number): [string, Record<string, string>][] {
  return [
    ['instant rate 1000 series', { query: 'rate(bench_http_requests_total[5m])', time: String(end) }],
    ['range 6h/15s rate', { query: 'rate(bench_http_requests_total[5m])', start: String(start), end: String(end), step: '15' }],
    ['range 6h/60s rate', { query: 'rate(bench_http_requests_total[5m])', start: String(start), end: String(end), step: '60' }],
    ['range 6h/60s sum by (job)', { query: 'sum by (job) (rate(bench_http_requests_total[5m]))', start: String(start), end: String(end), step: '60' }],
    ['range 6h/60s histogram_quantile', { query: 'histogram_quantile(0.9, sum by (le) (rate(bench_latency_seconds_bucket[5m])))', start: String(start), end: String(end), step: '60' }],
    ['instant regex over 10k series', { query: 'count(bench_many{id=~"s1.*|s2.*"})', time: String(end) }],
    ['range 6h/60s topk', { query: 'topk(5, rate(bench_http_requests_total[5m]))', start: String(start), end: String(end), step: '60' }],
    // The other anchors (docs/prometheus.md §5.2).
    ['instant sum by (handler)', { query: 'sum by (handler) (rate(bench_http_requests_total[5m]))', time: String(end) }],
    ['instant histogram_quantile by (le,handler)', { query: 'histogram_quantile(0.99, sum by (le,handler) (rate(bench_latency_seconds_bucket[5m])))', time: String(end) }],
    ['range 6h/60s histogram_quantile(0.9, rate)', { query: 'histogram_quantile(0.9, rate(bench_latency_seconds_bucket[5m]))', start: String(start), end: String(end), step: '60' }],
    ['range 6h/60s max_over_time[1h]', { query: 'max_over_time(bench_http_requests_total[1h])', start: String(start), end: String(end), step: '60' }],
    ['range 6h/60s raw selector', { query: 'bench_http_requests_total', start: String(start), end: String(end), step: '60' }],
    // Metadata endpoints (the figures name `/api/v1/series` and label values): the key `path` picks the route.
    ['series of 1,000 counters', { path: '/api/v1/series', 'match[]': 'bench_http_requests_total', start: String(start), end: String(end) }],
    ['series of 10,000 gauges', { path: '/api/v1/series', 'match[]': 'bench_many', start: String(start), end: String(end) }],
    ['label values id (10,000)', { path: '/api/v1/label/id/values' }],
    ['label values instance, match[]', { path: '/api/v1/label/instance/values', 'match[]': 'bench_http_requests_total', start: String(start), end: String(end) }],
  ];
}

/** One request end to end (POST for queries, GET for metadata routes): wall-clock ms and the body. */
export async function timed(base: string, query: Record<string, string>): Promise<{ ms: number; body: string }> {
  const { path = query.step ? '/api/v1/query_range' : '/api/v1/query', ...params } = query;
  const t0 = performance.now();
  // Prometheus answers label values on GET only.
  const r = query.path
    ? await fetch(`${base}${path}?${new URLSearchParams(params)}`)
    : await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });
  const body = await r.text();
  return { ms: performance.now() - t0, body };
}

/** Whether two answers hold the same series and samples (values within 1e-9 relative). */
export function sameResults(a: string, b: string): boolean {
  const ja = JSON.parse(a), jb = JSON.parse(b);
  if (ja.status !== 'success' || jb.status !== 'success') return false;
  if (Array.isArray(ja.data)) return JSON.stringify(ja.data) === JSON.stringify(jb.data); // series, label values
  const norm = (d: { result: { metric: object; values?: [number, string][]; value?: [number, string] }[] }) =>
    new Map(d.result.map((s) => [JSON.stringify(s.metric), s.values ?? [s.value!]]));
  const ma = norm(ja.data), mb = norm(jb.data);
  if (ma.size !== mb.size) return false;
  for (const [k, va] of ma) {
    const vb = mb.get(k);
    if (!vb || vb.length !== va.length) return false;
    for (let i = 0; i < va.length; i++) {
      const x = Number(va[i][1]), y = Number(vb[i][1]);
      if (va[i][0] !== vb[i][0]) return false;
      if (!(x === y || (Number.isNaN(x) && Number.isNaN(y)) || Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y)))) return false;
    }
  }
  return true;
}

