/**
 * Wiring of the rules engine on the metrics port: rule queries take the same fetch-then-evaluate-in-a-worker
 * path as `/api/v1/query`, results are appended through the TSDB writer, and the API routes are registered.
 * The config reload path calls `manager.applyConfig(...)` with the `rule_files`, `global` and `alerting` sections.
 */
import type { Router } from '../../router.ts';
import type { ServerContext } from '../../context.ts';
import type { WrittenSample } from '../../../engine/rules/group.ts';
import { instantSamples } from '../query-routes.ts';
import type { SeriesClient } from '../query-routes.ts';
import { RuleManager } from './manager.ts';
import type { RulesConfig } from './manager.ts';
import { registerRulesRoutes } from './rules-routes.ts';

/** Where rule results go (implemented over the TSDB's append path). */
export interface SampleWriter { append(samples: WrittenSample[]): Promise<void> }

export function createRules(router: Router, ctx: ServerContext, client: SeriesClient, writer: SampleWriter, externalURL: string): RuleManager {
  const manager = new RuleManager({
    query: (rule, t) => instantSamples(ctx, client, rule.expr, rule.exprText, t),
    append: (samples) => writer.append(samples),
    log: ctx.log,
    now: ctx.now,
    externalURL,
  });
  registerRulesRoutes(router, manager);
  return manager;
}

export type { RulesConfig };
