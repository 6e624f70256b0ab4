/** Routes of the Elasticsearch-compatible API on port 9200. */
import type { ServerContext, ServiceHooks } from '../context.ts';
import type { Router } from '../router.ts';
import { bannerResponse } from './banner.ts';

export function registerEsRoutes(router: Router, ctx: ServerContext): ServiceHooks {
  router.add(['GET', 'HEAD'], '/', (req) => bannerResponse(ctx, req.query.has('pretty')));
  return {};
}
