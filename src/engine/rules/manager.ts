/**
 * The rule manager (`rules/manager.go`): loads the rule files named by `rule_files` (globs allowed in the
 * last path segment; a pattern matching nothing is not an error, as with Go's `filepath.Glob`), builds
 * the groups and runs them. A reload with any bad file is refused as a whole and the running rules stay.
 * Unchanged groups keep running; changed ones take over their predecessor's state; removed ones mark
 * their series stale. Groups loaded at start-up restore alert `for` state; later reloads do not.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { InvalidArgumentError } from '../errors.ts';
import type { Labels } from '../tsdb/api.ts';
import { AlertingRule } from './alerting-rule.ts';
import { Group, type GroupEnv } from './group.ts';
import { RecordingRule } from './recording-rule.ts';
import type { BaseRule } from './rule.ts';
import { parseRuleFile, type RuleGroupSpec } from './rule-file.ts';

export interface RulesConfig {
  /** Rule file paths or globs (absolute, or relative to the working directory). */
  files: string[];
  /** Default group interval (`global.evaluation_interval`). */
  evaluationIntervalMs: number;
  externalLabels: Labels;
  externalURL: string;
}

export class RuleManager {
  private groups = new Map<string, Group>();
  /** Becomes true after the first successful load: later loads do not restore alert state. */
  private restored = false;

  constructor(private readonly env: GroupEnv) {}

  /** Reads, validates and applies the rule files; throws (and changes nothing) when any file is bad. */
  async update(cfg: RulesConfig): Promise<void> {
    const loaded = await loadRuleFiles(cfg.files);
    const shouldRestore = !this.restored;
    const next = new Map<string, Group>();
    for (const { file, groups } of loaded) {
      for (const spec of groups) {
        const g = this.buildGroup(file, spec, cfg, shouldRestore);
        next.set(g.key, g);
      }
    }
    this.restored = true;
    const old = this.groups;
    this.groups = new Map();
    const starts: Promise<void>[] = [];
    for (const [key, g] of next) {
      const prev = old.get(key);
      old.delete(key);
      if (prev && prev.equals(g)) { this.groups.set(key, prev); continue; }
      this.groups.set(key, g);
      starts.push((async () => {
        if (prev) { await prev.stop(); g.copyState(prev); }
        g.start();
      })());
    }
    for (const g of old.values()) { g.markStale = true; starts.push(g.stop()); }
    await Promise.all(starts);
  }

  private buildGroup(file: string, spec: RuleGroupSpec, cfg: RulesConfig, shouldRestore: boolean): Group {
    const ctx = { externalLabels: cfg.externalLabels, externalURL: cfg.externalURL };
    const rules: BaseRule[] = spec.rules.map((r) => (r.kind === 'alert'
      ? new AlertingRule(r, ctx, !shouldRestore, (msg) => this.env.warn(msg, { alert: r.name }))
      : new RecordingRule(r)));
    return new Group({
      file, name: spec.name, intervalMs: spec.intervalMs || cfg.evaluationIntervalMs, limit: spec.limit, rules, shouldRestore,
    }, this.env);
  }

  /** Groups ordered by file, then name (as the API lists them). */
  ruleGroups(): Group[] {
    return [...this.groups.values()].sort((a, b) => (a.file !== b.file ? (a.file < b.file ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  alertingRules(): AlertingRule[] {
    return this.ruleGroups().flatMap((g) => g.rules.filter((r): r is AlertingRule => r instanceof AlertingRule));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.groups.values()].map((g) => g.stop()));
  }
}

/** Expands the patterns and parses every file; throws one error listing every problem. */
export async function loadRuleFiles(patterns: string[]): Promise<{ file: string; groups: RuleGroupSpec[] }[]> {
  const files: string[] = [];
  for (const p of patterns) for (const f of await glob(p)) if (!files.includes(f)) files.push(f);
  const out: { file: string; groups: RuleGroupSpec[] }[] = [];
  const errors: string[] = [];
  for (const file of files) {
    let text: string;
    try { text = await readFile(file, 'utf8'); } catch (e) { errors.push(`${file}: ${(e as Error).message}`); continue; }
    const r = parseRuleFile(text, file);
    if (r.errors.length) errors.push(...r.errors);
    else out.push({ file, groups: r.groups });
  }
  if (errors.length) throw new InvalidArgumentError('INVALID_ARGUMENT', `error loading rules, previous rule set restored: ${errors.join('; ')}`, { errors });
  return out;
}

/** `filepath.Glob` for patterns whose meta characters are in the last segment only (what config allows). */
async function glob(pattern: string): Promise<string[]> {
  const base = basename(pattern);
  const dir = dirname(pattern);
  if (!/[*?[]/.test(base)) {
    try { await stat(pattern); return [pattern]; } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ENOENT' ? [] : [pattern];
    }
  }
  let names: string[];
  try { names = await readdir(dir); } catch { return []; }
  const re = new RegExp('^' + base.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]') + '$');
  return names.filter((n) => re.test(n)).sort().map((n) => (dir === '.' && !pattern.startsWith('./') ? n : join(dir, n)));
}
