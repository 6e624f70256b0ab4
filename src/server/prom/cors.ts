/**
 * CORS on the metrics API as Prometheus 2.42 does it (`util/httputil/cors.go`): a request with an `Origin`
 * gets the allow headers, and `Access-Control-Allow-Origin` — `*` for the default `--web.cors.origin=.*`,
 * else the origin itself when the anchored regex matches it. Preflight `OPTIONS` on any API path is 204.
 */
import type { HttpResponse } from '../http.ts';
import type { Router } from '../router.ts';
import { goRegexPredicate } from '../../engine/regex/index.ts';

const CORS_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Headers': 'Accept, Authorization, Content-Type, Origin',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Expose-Headers': 'Date',
  Vary: 'Origin',
};

/** Adds CORS to every route added under `prefix` from now on, and answers preflights there. */
export function registerCors(router: Router, prefix: string, originPattern: string): void {
  const any = originPattern === '.*';
  const matches = goRegexPredicate(originPattern);
  const add = (origin: string | undefined, res: HttpResponse): HttpResponse => {
    if (!origin) return res;
    const headers = { ...res.headers, ...CORS_HEADERS };
    if (any) headers['Access-Control-Allow-Origin'] = '*';
    else if (matches(origin)) headers['Access-Control-Allow-Origin'] = origin;
    return { ...res, headers };
  };
  router.use(prefix, async (req, next) => add(req.headers.origin, await next()));
  router.options(prefix, () => ({ status: 204, headers: {} }));
}
