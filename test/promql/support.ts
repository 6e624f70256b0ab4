/** Shared fixtures for the query API tests: a router with the query routes over an in-memory series client. */
import { SelfMetrics } from '../../src/server/self-metrics.ts';
import assert from 'node:assert/strict';
import { Router } from '../../src/server/router.ts';
import { registerQueryRoutes } from '../../src/server/prom/query-routes.ts';
import type { SeriesClient } from '../../src/server/prom/query-routes.ts';
import type { ServerContext, ServiceHooks } from '../../src/server/context.ts';
import type { HttpRequest, HttpResponse } from '../../src/server/http.ts';
import { inProcessPool, selectWindow } from '../support/in-process.ts';
import { MemQuerier } from '../../src/engine/tsdb/mem-querier.ts';
import type { Labels } from '../../src/engine/tsdb/api.ts';
import { newMatcher } from '../../src/engine/tsdb/api.ts';
import { bodyBytes } from '../../src/server/reply-body.ts';

export const T0 = 1704070800_000;
const lbl = (o: Record<string, string>): Labels => Object.keys(o).sort().map((name) => ({ name, value: o[name] }));

/**
 * `threads`: how many threads the evaluator says it has (splitting range queries of `splitMinSteps` steps
 * takes two); `metrics`: where the routes register their self-metrics.
 */
export function setup(opts: { timeout?: string; maxSamples?: number; slowClient?: number; now?: number; configFile?: string; hooks?: (h: ServiceHooks) => void; threads?: number; splitMinSteps?: number; metrics?: SelfMetrics } = {}): Router {
  const mem = new MemQuerier();
  for (const inst of ['10000', '10001', '10002']) {
    for (let t = T0 - 3600_000; t <= T0 + 600_000; t += 15_000) mem.append(lbl({ __name__: 'demo_num_cpus', instance: `demo.promlabs.com:${inst}`, job: 'demo' }), t, 4);
  }
  mem.append(lbl({ __name__: 'mem', instance: 'a', type: 'cached' }), T0, 1);
  mem.append(lbl({ __name__: 'mem', instance: 'a', type: 'buffers' }), T0, 2);
  mem.append(lbl({ __name__: 'odd', le: '<x&y>' }), T0, 0.5);
  mem.append(lbl({ __name__: 'demo_disk', instance: 'demo.promlabs.com:10000', job: 'demo' }), T0, 9);
  const client: SeriesClient = {
    async select(matchers, mint, maxt) {
      if (opts.slowClient) await new Promise((r) => setTimeout(r, opts.slowClient));
      // As the TSDB worker does: matchers cross as {type, name, value} and are rebuilt with newMatcher.
      return selectWindow(mem, matchers.map((m) => newMatcher(m.type, m.name, m.value)), mint, maxt);
    },
  };
  const pool = inProcessPool();
  const ctx = {
    flags: { 'query.lookback-delta': '5m', 'query.timeout': opts.timeout ?? '2m', 'query.max-samples': opts.maxSamples ?? 50_000_000, 'config.file': opts.configFile ?? '', 'query.split-min-steps': opts.splitMinSteps ?? 0 },
    log: { warn: () => {}, info: () => {}, error: () => {}, debug: () => {} },
    pool, now: () => opts.now ?? 1795305340_842, metrics: opts.metrics ?? new SelfMetrics(),
  } as unknown as ServerContext;
  const router = new Router();
  // Evaluation runs on this thread through the same task and error round trip as a query thread.
  const evaluator = { call: (op: 'promql.eval', args: Parameters<typeof pool.call<'promql.eval'>>[2], _signal: AbortSignal, onThreadFree: () => void) => pool.call(0, op, args).finally(onThreadFree), close: async () => {}, threads: opts.threads };
  const hooks = registerQueryRoutes(router, ctx, client, { evaluator });
  opts.hooks?.(hooks);
  return router;
}

export async function call(router: Router, method: string, path: string, opts: { body?: string; headers?: Record<string, string> } = {}): Promise<HttpResponse> {
  const [p, q = ''] = path.split('?');
  const m = router.match(method, p);
  assert.equal(m.kind, 'found');
  const req: HttpRequest = {
    method, path: p, rawQuery: q, query: new URLSearchParams(q), headers: opts.headers ?? {},
    body: Buffer.from(opts.body ?? ''), remoteAddress: '127.0.0.1', signal: new AbortController().signal,
  } as HttpRequest;
  const res = await (m as { handler: (r: HttpRequest, p: object) => Promise<HttpResponse> }).handler(req, {});
  // A long answer comes in pieces (the HTTP layer sends them unjoined); tests read it as one body.
  return Array.isArray(res.body) ? { ...res, body: bodyBytes(res.body) } : res;
}

