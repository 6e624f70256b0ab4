/**
 * The rules service on the metrics port: loads `rule_files` and the `alerting` section from
 * `--config.file` on start and on every reload (a bad rule file or alerting section refuses the reload
 * and the running rules stay), evaluates groups on schedule, writes results through the TSDB client,
 * notifies Alertmanagers, and serves `/api/v1/rules`, `/api/v1/alerts` and `/api/v1/alertmanagers`.
 *
 * Rule queries take the fetch-then-evaluate path: the selectors' windows are read through the TSDB
 * client on this thread, and the expression is evaluated next to that data in a shard worker
 * (`rules.eval`), so an expensive rule never blocks the HTTP thread.
 */
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { ServerContext, ServiceHooks } from '../context.ts';
import type { Router } from '../router.ts';
import { durationMs } from '../flags.ts';
import { promError, promSuccess } from './respond.ts';
import { alertmanagersBody, alertsBody, goJsonSuccess, rulesBody, type RuleTypeFilter } from './rules-api.ts';
import type { FetchedSeries, Matcher } from '../../engine/tsdb/api.ts';
import type { IngestSample } from '../../engine/scrape/sample-sink.ts';
import { loadConfig } from '../../engine/scrape/config.ts';
import { formatExpr, selectorRanges } from '../../engine/promql/index.ts';
import { mergeSeries } from './query-routes.ts';
import { RuleManager, type RulesConfig } from '../../engine/rules/manager.ts';
import { systemClock, type Clock } from '../../engine/rules/clock.ts';
import type { GroupEnv } from '../../engine/rules/group.ts';
import type { QueryFn } from '../../engine/rules/rule.ts';
import { fetchPostJson, Notifier, toNotifierAlerts, type PostJson } from '../../engine/rules/notifier.ts';
import { AlertmanagerDiscovery, checkAlertingSupported, type AlertingSetup } from '../../engine/rules/alerting-config.ts';
import type { AlertingConfig } from '../../engine/scrape/config.ts';
import type { RulesEvalArgs } from '../../workers/protocol.ts';
import { EXTENDED_QUANTILES } from '../self-metrics.ts';

/** What the rules need from the TSDB: the same append and select the scrape and query paths use. */
export interface RulesStorage {
  append(samples: IngestSample[]): Promise<unknown>;
  select(matchers: readonly Matcher[], mintMs: number, maxtMs: number): Promise<FetchedSeries[]>;
}

export interface RulesRouteOptions { query?: QueryFn; clock?: Clock; post?: PostJson }

export function registerRulesRoutes(router: Router, ctx: ServerContext, client: RulesStorage | null, opts: RulesRouteOptions = {}): ServiceHooks {
  const warn = (msg: string, fields?: Record<string, unknown>): void => ctx.log.warn(msg, fields);
  const externalURL = externalUrl(ctx);
  const notifier = new Notifier({ queueCapacity: ctx.flags['alertmanager.notification-queue-capacity'], post: opts.post ?? fetchPostJson, warn });
  const manager = new RuleManager(groupEnv(ctx, client ?? detachedStorage(), notifier, externalURL, opts));
  let alerting: AlertingSetup = { sets: [], dropped: [], alertRelabel: [] };
  let discovery: AlertmanagerDiscovery | null = null;

  const applyNow = async (): Promise<void> => {
    const { rules, alertingCfg } = await readRulesConfig(ctx, externalURL);
    checkAlertingSupported(alertingCfg);
    await manager.update(rules);
    const use = (setup: AlertingSetup): void => {
      notifier.configure(setup.sets, rules.externalLabels, setup.alertRelabel);
      alerting = setup;
    };
    discovery?.stop();
    discovery = new AlertmanagerDiscovery(alertingCfg, use, warn);
    use(await discovery.start());
  };
  // Reloads run one at a time (SIGHUP and /-/reload may overlap); each caller sees its own outcome.
  let last: Promise<void> = Promise.resolve();
  const apply = (): Promise<void> => (last = last.catch(() => {}).then(applyNow));

  router.add(['GET'], '/api/v1/rules', (req) => {
    const type = (req.query.get('type') ?? '').toLowerCase();
    if (type !== '' && type !== 'alert' && type !== 'record') return promError('bad_data', `invalid parameter "type": not supported value ${JSON.stringify(type)}`);
    return goJsonSuccess(rulesBody(manager, type as RuleTypeFilter));
  });
  router.add(['GET'], '/api/v1/alerts', () => goJsonSuccess(alertsBody(manager)));
  router.add(['GET'], '/api/v1/alertmanagers', () => promSuccess(alertmanagersBody(notifier.alertmanagerUrls(), alerting.dropped)));
  registerRulesMetrics(ctx, manager, notifier);

  return {
    start: apply,
    reload: apply,
    async stop() {
      discovery?.stop();
      await manager.stop();
      // Give queued notifications a few seconds to go out, without holding up shutdown on a dead Alertmanager.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([notifier.flush(), new Promise((r) => { timer = setTimeout(r, 5000); })]);
      clearTimeout(timer);
    },
  };
}

function groupEnv(ctx: ServerContext, storage: RulesStorage, notifier: Notifier, externalURL: string, opts: RulesRouteOptions): GroupEnv {
  const warn = (msg: string, fields?: Record<string, unknown>): void => ctx.log.warn(msg, fields);
  return {
    query: opts.query ?? workerQuery(ctx, storage),
    append: (samples) => storage.append(samples),
    select: (matchers, mint, maxt) => storage.select(matchers, mint, maxt),
    notify: (expr, alerts) => { if (alerts.length) notifier.send(toNotifierAlerts(expr, alerts, externalURL)); },
    clock: opts.clock ?? systemClock,
    resendDelayMs: durationMs(ctx.flags['rules.alert.resend-delay']),
    outageToleranceMs: durationMs(ctx.flags['rules.alert.for-outage-tolerance']),
    forGracePeriodMs: durationMs(ctx.flags['rules.alert.for-grace-period']),
    warn,
    observe: ruleDurations(ctx),
  };
}

/** `prometheus_rule_evaluation_duration_seconds` and `prometheus_rule_group_duration_seconds`, with Prometheus's quantiles. */
function ruleDurations(ctx: ServerContext): GroupEnv['observe'] {
  const rules = ctx.metrics.summary('prometheus_rule_evaluation_duration_seconds', 'The duration for a rule to execute.');
  const groups = ctx.metrics.summary('prometheus_rule_group_duration_seconds', 'The duration of rule group evaluations.', [], EXTENDED_QUANTILES);
  const rule = rules.seriesOf([]);
  const group = groups.seriesOf([]);
  return { ruleEvaluated: (s) => rule.observe(s), groupEvaluated: (s) => group.observe(s) };
}

/** The rule files and alerting section of `--config.file` (none without a config file). */
async function readRulesConfig(ctx: ServerContext, externalURL: string): Promise<{ rules: RulesConfig; alertingCfg: AlertingConfig }> {
  const file = ctx.flags['config.file'];
  if (file === '') {
    return { rules: { files: [], evaluationIntervalMs: 60_000, externalLabels: [], externalURL }, alertingCfg: { alertRelabelConfigs: [], alertmanagers: [] } };
  }
  let text: string;
  try { text = await readFile(file, 'utf8'); } catch (e) { throw new Error(`couldn't load configuration (--config.file="${file}"): ${(e as Error).message}`); }
  const cfg = loadConfig(text, file);
  return {
    rules: { files: cfg.ruleFiles, evaluationIntervalMs: cfg.global.evaluationIntervalMs, externalLabels: cfg.global.externalLabels, externalURL },
    alertingCfg: cfg.alerting,
  };
}

/** Fetches each selector's window through the TSDB client, then evaluates in a shard worker. */
function workerQuery(ctx: ServerContext, storage: RulesStorage): QueryFn {
  const lookbackMs = durationMs(ctx.flags['query.lookback-delta']);
  const timeoutMs = durationMs(ctx.flags['query.timeout']);
  let next = 0;
  return async (expr, tMs) => {
    const ranges = selectorRanges(expr, tMs, tMs, { lookbackMs, defaultSubqueryStepMs: 60_000 });
    const fetched = await Promise.all(ranges.map((r) => storage.select(r.matchers, r.mintMs, r.maxtMs)));
    const args: RulesEvalArgs = {
      query: formatExpr(expr), tMs, series: mergeSeries(fetched), lookbackMs, timeoutMs, maxSamples: ctx.flags['query.max-samples'],
    };
    next = (next + 1) % ctx.pool.size;
    const out = await ctx.pool.call(next, 'rules.eval', args);
    return out.map((s) => ({ metric: s.labels, t: tMs, v: s.v }));
  };
}

/** Used until a TSDB client is passed in: nothing is stored, and writes fail loudly (rule health "err"). */
function detachedStorage(): RulesStorage {
  return {
    append: () => Promise.reject(new Error('no TSDB storage is attached to the rules engine; rule results are not written')),
    select: () => Promise.resolve([]),
  };
}

/** `--web.external-url` without a trailing slash, or `http://<hostname>:<port>` as Prometheus defaults. */
function externalUrl(ctx: ServerContext): string {
  const flag = ctx.flags['web.external-url'];
  if (flag !== '') return flag.replace(/\/+$/, '');
  const addr = ctx.flags['web.listen-address'];
  return `http://${hostname()}:${addr.slice(addr.lastIndexOf(':') + 1)}`;
}

function registerRulesMetrics(ctx: ServerContext, manager: RuleManager, notifier: Notifier): void {
  const perGroup = (pick: (g: ReturnType<RuleManager['ruleGroups']>[number]) => number) => () =>
    manager.ruleGroups().map((g) => [[`${g.file};${g.name}`], pick(g)] as [string[], number]);
  ctx.metrics.gauge('prometheus_rule_group_rules', 'The number of rules.', ['rule_group'], perGroup((g) => g.rules.length));
  ctx.metrics.gauge('prometheus_rule_group_interval_seconds', 'The interval of a rule group.', ['rule_group'], perGroup((g) => g.intervalMs / 1000));
  ctx.metrics.gauge('prometheus_rule_group_last_duration_seconds', 'The duration of the last rule group evaluation.', ['rule_group'], perGroup((g) => g.evaluationSeconds));
  ctx.metrics.gauge('prometheus_rule_group_last_evaluation_timestamp_seconds', 'The timestamp of the last rule group evaluation in seconds.', ['rule_group'], perGroup((g) => g.lastEvaluation / 1000));
  ctx.metrics.gauge('prometheus_rule_evaluations_total', 'The total number of rule evaluations.', ['rule_group'], perGroup((g) => g.evalTotal), 'counter');
  ctx.metrics.gauge('prometheus_rule_group_iterations_total', 'The total number of scheduled rule group evaluations, whether executed or missed.', ['rule_group'], perGroup((g) => g.iterationsTotal + g.iterationsMissed), 'counter');
  ctx.metrics.gauge('prometheus_rule_group_iterations_missed_total', 'The total number of rule group evaluations missed due to slow rule group evaluation.', ['rule_group'], perGroup((g) => g.iterationsMissed), 'counter');
  ctx.metrics.gauge('prometheus_rule_evaluation_failures_total', 'The total number of rule evaluation failures.', ['rule_group'], perGroup((g) => g.evalFailures), 'counter');
  ctx.metrics.gauge('prometheus_notifications_sent_total', 'Total number of alerts sent.', [], () => [[[], notifier.stats.sent]], 'counter');
  ctx.metrics.gauge('prometheus_notifications_errors_total', 'Total number of errors sending alert notifications.', [], () => [[[], notifier.stats.errors]], 'counter');
  ctx.metrics.gauge('prometheus_notifications_dropped_total', 'Total number of alerts dropped due to errors when sending to Alertmanager.', [], () => [[[], notifier.stats.dropped]], 'counter');
  ctx.metrics.gauge('prometheus_notifications_queue_length', 'The number of alert notifications in the queue.', [], () => [[[], notifier.queueLength()]]);
  ctx.metrics.gauge('prometheus_notifications_queue_capacity', 'The capacity of the alert notifications queue.', [], () => [[[], ctx.flags['alertmanager.notification-queue-capacity']]]);
  ctx.metrics.gauge('prometheus_notifications_alertmanagers_discovered', 'The number of alertmanagers discovered and active.', [], () => [[[], notifier.alertmanagerUrls().length]]);
}
