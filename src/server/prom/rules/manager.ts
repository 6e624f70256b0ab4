/**
 * Runs the rule groups of `rule_files`: one timer per group at its interval, each evaluation writes its
 * samples (and stale markers) back through `append`, and firing/resolved alerts go to the configured
 * Alertmanagers. `applyConfig` is the reload path: groups are rebuilt from the files, and alert state is
 * carried over for rules that still exist (same file, group and rule name), as Prometheus does.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseRuleFile } from '../../../engine/rules/rule-file.ts';
import { RuleGroup } from '../../../engine/rules/group.ts';
import type { WrittenSample } from '../../../engine/rules/group.ts';
import { AlertingRule } from '../../../engine/rules/alerting.ts';
import type { RuleQuery, Alert } from '../../../engine/rules/alerting.ts';
import { alertmanagerTargets, alertPayload, sendAlerts } from './notifier.ts';
import type { AlertmanagerTarget } from './notifier.ts';

export interface RulesConfig {
  ruleFiles: string[];
  evaluationIntervalMs: number;
  externalLabels: Record<string, string>;
  alerting: Record<string, unknown> | null;
}

export interface RuleManagerDeps {
  query: RuleQuery;
  append(samples: WrittenSample[]): Promise<void>;
  log: { warn(msg: string, fields?: Record<string, unknown>): void; error(msg: string, fields?: Record<string, unknown>): void };
  now(): number;
  /** Base of the `generatorURL` sent with alerts, e.g. `http://host:9090`. */
  externalURL: string;
}

const RESEND_DELAY_MS = 60_000;

export class RuleManager {
  groups: RuleGroup[] = [];
  alertmanagers: AlertmanagerTarget[] = [];
  private timers = new Map<string, NodeJS.Timeout>();
  private externalLabels: Record<string, string> = {};
  private stopped = false;

  constructor(private readonly deps: RuleManagerDeps) {}

  /** Loads the rule files (throws on a bad file, leaving the running groups untouched) and restarts the timers. */
  applyConfig(cfg: RulesConfig): void {
    const defs = cfg.ruleFiles.flatMap((pattern) => expandGlob(pattern))
      .flatMap((f) => parseRuleFile(readFileSync(f, 'utf8'), f, cfg.evaluationIntervalMs));
    const old = new Map(this.groups.map((g) => [g.key, g]));
    const next = defs.map((d) => new RuleGroup(d, cfg.externalLabels, this.deps.externalURL));
    for (const g of next) {
      const prev = old.get(g.key);
      if (prev) carryState(prev, g);
    }
    this.stopTimers();
    this.groups = next;
    this.externalLabels = cfg.externalLabels;
    this.alertmanagers = alertmanagerTargets(cfg.alerting);
    if (!this.stopped) for (const g of next) this.schedule(g, 0);
  }

  /** Evaluates one group now (used by the timers, and by tests for deterministic steps). */
  async evalGroup(g: RuleGroup, tMs: number): Promise<void> {
    const samples = await g.eval(tMs, this.deps.query);
    if (samples.length) {
      try { await this.deps.append(samples); } catch (e) { this.deps.log.error('rule results not written', { group: g.def.name, err: (e as Error).message }); }
    }
    const toSend: Alert[] = [];
    for (const r of g.rules) if (r instanceof AlertingRule) toSend.push(...r.toSend(tMs, RESEND_DELAY_MS, g.def.intervalMs));
    if (toSend.length && this.alertmanagers.length) {
      const payload = alertPayload(toSend, this.externalLabels, (a) => this.generatorURL(g, a));
      const errors = await sendAlerts(this.alertmanagers, payload);
      for (const err of errors) this.deps.log.warn('error sending alerts', { err });
    }
  }

  private generatorURL(g: RuleGroup, a: Alert): string {
    const rule = g.rules.find((r) => r instanceof AlertingRule && r.active.has(a.labels.map((l) => l.name + '\xfe' + l.value + '\xff').join('')));
    const expr = rule ? rule.def.exprText : '';
    return `${this.deps.externalURL}/graph?g0.expr=${encodeURIComponent(expr)}&g0.tab=1`;
  }

  private schedule(g: RuleGroup, delayMs: number): void {
    const t = setTimeout(() => {
      const now = this.deps.now();
      // Evaluation times sit on the group's interval grid, like Prometheus's aligned group offsets.
      const ts = now - (now % g.def.intervalMs);
      this.evalGroup(g, ts).catch((e) => this.deps.log.error('rule group evaluation failed', { group: g.def.name, err: (e as Error).message }))
        .finally(() => { if (this.timers.get(g.key) === t && !this.stopped) this.schedule(g, g.def.intervalMs - (this.deps.now() % g.def.intervalMs)); });
    }, delayMs);
    t.unref?.();
    this.timers.set(g.key, t);
  }

  private stopTimers(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  stop(): void { this.stopped = true; this.stopTimers(); }
}

/** Go's filepath.Glob for the usual case of wildcards in the file name only (`rules/*.yml`). */
function expandGlob(pattern: string): string[] {
  if (!/[*?[]/.test(pattern)) return [pattern];
  const dir = dirname(pattern);
  const re = new RegExp('^' + basename(pattern).replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]') + '$');
  let names: string[] = [];
  try { names = readdirSync(dir); } catch { return []; }
  return names.filter((n) => re.test(n)).sort().map((n) => join(dir, n));
}

function carryState(prev: RuleGroup, next: RuleGroup): void {
  for (const r of next.rules) {
    if (!(r instanceof AlertingRule)) continue;
    const old = prev.rules.find((o) => o instanceof AlertingRule && o.def.name === r.def.name && o.def.exprText === r.def.exprText);
    if (old instanceof AlertingRule) for (const [k, a] of old.active) r.active.set(k, a);
  }
}
