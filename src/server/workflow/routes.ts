/** Routes of the workflow service on port 8080. */
import type { ServerContext, ServiceHooks } from '../context.ts';
import type { Router } from '../router.ts';

export function registerWorkflowRoutes(_router: Router, _ctx: ServerContext): ServiceHooks {
  return {};
}
