/** Routes of the Prometheus-compatible API on the metrics port; each area registers its own file's routes. */
import type { ServerContext, ServiceHooks } from '../context.ts';
import type { Router } from '../router.ts';
import { registerLifecycleRoutes, type Lifecycle } from './lifecycle-routes.ts';
import { registerRulesRoutes } from './rules-routes.ts';
import { registerGraphRoutes } from './graph-routes.ts';

export function registerMetricsRoutes(router: Router, ctx: ServerContext, life: Lifecycle): ServiceHooks {
  registerLifecycleRoutes(router, ctx, life);
  registerGraphRoutes(router);
  // The TSDB client (append/select) goes here once it lands; until then rule results are not stored.
  const rules = registerRulesRoutes(router, ctx, null);
  return rules;
}
