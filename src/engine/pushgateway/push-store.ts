/**
 * Push-gateway groups (Prometheus Pushgateway 1.5 semantics). A group is identified by its grouping
 * labels (`job` plus any `/<label>/<value>` pairs of the push URL). PUT replaces the group's metrics,
 * POST replaces only the metric families present in the body, DELETE removes the group. The groups are
 * exposed in the text format for Tessera's own scrape job (`/pushgateway/metrics`, honor_labels: true),
 * each sample carrying its group's labels, plus `push_time_seconds` and `push_failure_time_seconds`.
 */
import { InvalidArgumentError } from '../errors.ts';
import type { Label } from '../tsdb/api.ts';
import { ENTRY_EOF, ENTRY_SERIES, ExpositionParser } from '../exposition/exposition-parser.ts';
import {
  escapeHelp, formatSampleValue, formatSeries, recordMetadata, type MetricMetadata,
} from '../exposition/exposition.ts';
import { toSortedLabels } from '../scrape/relabel.ts';

interface Family { meta: MetricMetadata; samples: { labels: Label[]; v: number }[] }

interface Group {
  labels: Label[];
  families: Map<string, Family>;
  pushTimeSec: number;
  failureTimeSec: number;
}

const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Serialisable state, for persistence across restarts. */
export interface PushStoreState { groups: { labels: Label[]; pushTimeSec: number; failureTimeSec: number; families: [string, Family][] }[] }

export class PushStore {
  private readonly groups = new Map<string, Group>();

  /** Applies a push. `replace` = PUT semantics. Throws InvalidArgumentError (→ 400) on a bad body. */
  push(grouping: Label[], body: string, replace: boolean, nowMs: number): void {
    const key = groupKey(grouping);
    let parsed: Map<string, Family>;
    try {
      parsed = parsePushBody(body, grouping);
      this.checkConsistent(key, parsed);
    } catch (e) {
      // As the Pushgateway does, a failed push still creates the group, to expose its failure time.
      this.group(key, grouping).failureTimeSec = nowMs / 1000;
      throw e;
    }
    const g = this.group(key, grouping);
    if (replace) g.families = parsed;
    else for (const [name, f] of parsed) g.families.set(name, f);
    g.pushTimeSec = nowMs / 1000;
  }

  private group(key: string, grouping: Label[]): Group {
    let g = this.groups.get(key);
    if (!g) { g = { labels: grouping, families: new Map(), pushTimeSec: 0, failureTimeSec: 0 }; this.groups.set(key, g); }
    return g;
  }

  /** Removes a group; true if it existed. */
  delete(grouping: Label[]): boolean {
    return this.groups.delete(groupKey(grouping));
  }

  /** Renders every group in the text format 0.0.4, families merged across groups. */
  render(): string {
    const byFamily = new Map<string, { meta: MetricMetadata; lines: string[] }>();
    const add = (name: string, meta: MetricMetadata, line: string): void => {
      let f = byFamily.get(name);
      if (!f) { f = { meta, lines: [] }; byFamily.set(name, f); }
      if (!f.meta.help && meta.help) f.meta = meta;
      f.lines.push(line);
    };
    const groups = [...this.groups.values()].sort((a, b) => (groupKey(a.labels) < groupKey(b.labels) ? -1 : 1));
    for (const g of groups) {
      for (const [name, fam] of g.families) {
        for (const s of fam.samples) add(name, fam.meta, `${formatSeries(s.labels)} ${formatSampleValue(s.v)}`);
      }
      const gl = [{ name: '__name__', value: '' }, ...g.labels];
      add('push_time_seconds', { type: 'gauge', help: 'Last Unix time when changing this group in the Pushgateway succeeded.', unit: '' },
        `${formatSeries(named(gl, 'push_time_seconds'))} ${formatSampleValue(g.pushTimeSec)}`);
      add('push_failure_time_seconds', { type: 'gauge', help: 'Last Unix time when changing this group in the Pushgateway failed.', unit: '' },
        `${formatSeries(named(gl, 'push_failure_time_seconds'))} ${formatSampleValue(g.failureTimeSec)}`);
    }
    const out: string[] = [];
    for (const [name, f] of [...byFamily].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      if (f.meta.help) out.push(`# HELP ${name} ${escapeHelp(f.meta.help)}`);
      out.push(`# TYPE ${name} ${f.meta.type === 'unknown' ? 'untyped' : f.meta.type}`);
      out.push(...f.lines);
    }
    return out.length ? out.join('\n') + '\n' : '';
  }

  /**
   * The groups as the Pushgateway's `GET /api/v1/metrics` lists them: grouping labels, whether the last
   * push succeeded, and per family its type, help, the group's push time and each metric (value, or
   * buckets/quantiles with count and sum), `push_time_seconds` and `push_failure_time_seconds` included.
   */
  apiGroups(): Record<string, unknown>[] {
    return [...this.groups.values()].map((g) => {
      const out: Record<string, unknown> = {
        labels: Object.fromEntries(g.labels.map((l) => [l.name, l.value])),
        last_push_successful: g.failureTimeSec <= g.pushTimeSec,
      };
      const stamp = new Date(g.pushTimeSec * 1000).toISOString();
      for (const [name, fam] of g.families) out[name] = { time_stamp: stamp, type: apiType(fam.meta.type), help: fam.meta.help || undefined, metrics: apiMetrics(name, fam) };
      const own = (name: string, help: string, v: number) => ({
        time_stamp: stamp, type: 'GAUGE', help, metrics: [{ labels: Object.fromEntries(g.labels.map((l) => [l.name, l.value])), value: formatSampleValue(v) }],
      });
      out.push_time_seconds = own('push_time_seconds', 'Last Unix time when changing this group in the Pushgateway succeeded.', g.pushTimeSec);
      out.push_failure_time_seconds = own('push_failure_time_seconds', 'Last Unix time when changing this group in the Pushgateway failed.', g.failureTimeSec);
      return out;
    });
  }

  state(): PushStoreState {
    return { groups: [...this.groups.values()].map((g) => ({ labels: g.labels, pushTimeSec: g.pushTimeSec, failureTimeSec: g.failureTimeSec, families: [...g.families] })) };
  }

  /** Replaces every group with those of `s` (a `state()` taken earlier, or the persistence file's). */
  restore(s: PushStoreState): void {
    this.groups.clear();
    for (const g of s.groups) {
      this.groups.set(groupKey(g.labels), { labels: g.labels, pushTimeSec: g.pushTimeSec, failureTimeSec: g.failureTimeSec, families: new Map(g.families) });
    }
  }

  /** A family pushed with a type different from the same family in another group is refused. */
  private checkConsistent(key: string, parsed: Map<string, Family>): void {
    for (const [k, g] of this.groups) {
      if (k === key) continue;
      for (const [name, f] of parsed) {
        const other = g.families.get(name);
        if (other && other.meta.type !== f.meta.type) {
          throw new InvalidArgumentError('INVALID_ARGUMENT', `pushed metrics are invalid or inconsistent with existing metrics: metric ${name} has type ${f.meta.type} but type ${other.meta.type} in another group`);
        }
      }
    }
  }
}

function apiType(t: string): string {
  return t === 'unknown' || t === 'untyped' || t === '' ? 'UNTYPED' : t.toUpperCase();
}

/** One entry per metric of the family; histogram and summary samples are folded back into one metric each. */
function apiMetrics(name: string, fam: Family): Record<string, unknown>[] {
  const plain = (ls: Label[]) => Object.fromEntries(ls.filter((l) => l.name !== '__name__' && l.name !== 'le' && l.name !== 'quantile').map((l) => [l.name, l.value]));
  if (fam.meta.type !== 'histogram' && fam.meta.type !== 'summary') {
    return fam.samples.map((s) => ({ labels: plain(s.labels), value: formatSampleValue(s.v) }));
  }
  const byLabels = new Map<string, Record<string, unknown>>();
  for (const s of fam.samples) {
    const labels = plain(s.labels);
    const key = JSON.stringify(labels);
    let m = byLabels.get(key);
    if (!m) { m = { labels, [fam.meta.type === 'histogram' ? 'buckets' : 'quantiles']: {}, count: '0', sum: '0' }; byLabels.set(key, m); }
    const metric = s.labels.find((l) => l.name === '__name__')?.value ?? name;
    const v = formatSampleValue(s.v);
    if (metric === `${name}_count`) m.count = v;
    else if (metric === `${name}_sum`) m.sum = v;
    else {
      const at = s.labels.find((l) => l.name === (fam.meta.type === 'histogram' ? 'le' : 'quantile'))?.value;
      if (at !== undefined && at !== '+Inf') (m[fam.meta.type === 'histogram' ? 'buckets' : 'quantiles'] as Record<string, string>)[at] = v;
    }
  }
  return [...byLabels.values()];
}

function named(labels: Label[], name: string): Label[] {
  return toSortedLabels(new Map(labels.map((l) => [l.name, l.name === '__name__' ? name : l.value] as [string, string])));
}

function groupKey(labels: Label[]): string {
  return labels.map((l) => `${l.name}\u0000${l.value}`).join('\u0001');
}

/** Parses a pushed text body; samples get the grouping labels; timestamps are refused, as the Pushgateway does. */
function parsePushBody(body: string, grouping: Label[]): Map<string, Family> {
  const p = new ExpositionParser(body, { openMetrics: false });
  const meta = new Map<string, MetricMetadata>();
  const families = new Map<string, Family>();
  const bad = (msg: string): never => { throw new InvalidArgumentError('INVALID_ARGUMENT', `pushed metrics are invalid or inconsistent with existing metrics: ${msg}`); };
  try {
    for (let e = p.next(); e !== ENTRY_EOF; e = p.next()) {
      if (e !== ENTRY_SERIES) { recordMetadata(meta, e, p.metricName, p.text); continue; }
      if (!Number.isNaN(p.timestampMs)) bad(`pushed metrics must not have timestamps (metric ${p.seriesKey})`);
      const labels = p.labels();
      const name = labels[0].name === '__name__' ? labels[0].value : labels.find((l) => l.name === '__name__')!.value;
      const fam = familyOf(name, meta);
      const b = new Map(labels.map((l) => [l.name, l.value] as [string, string]));
      // Grouping labels win over the same labels in the body, as in the Pushgateway.
      for (const gl of grouping) b.set(gl.name, gl.value);
      let f = families.get(fam);
      if (!f) { f = { meta: meta.get(fam) ?? { type: 'unknown', help: '', unit: '' }, samples: [] }; families.set(fam, f); }
      f.samples.push({ labels: toSortedLabels(b), v: p.value });
    }
  } catch (e) {
    if (e instanceof InvalidArgumentError) throw e;
    bad((e as Error).message);
  }
  return families;
}

/** The family a sample belongs to: its TYPE'd name, or that name minus a histogram/summary suffix. */
function familyOf(name: string, meta: Map<string, MetricMetadata>): string {
  if (meta.has(name)) return name;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (name.endsWith(suffix)) {
      const base = name.slice(0, -suffix.length);
      const t = meta.get(base)?.type;
      if (t === 'histogram' || t === 'summary') return base;
    }
  }
  return name;
}

/**
 * Grouping labels from the path after `/metrics/`: `job/<job>{/<label>/<value>}`, where a name ending in
 * `@base64` carries a URL-safe base64 value (the way to push an empty value or one containing `/`).
 */
export function parseGroupingPath(rest: string): Label[] {
  const parts = rest.split('/');
  const bad = (msg: string): never => { throw new InvalidArgumentError('INVALID_ARGUMENT', msg); };
  if (parts.length % 2 !== 0) bad(`odd number of components in label string "${rest}"`);
  const b = new Map<string, string>();
  for (let i = 0; i < parts.length; i += 2) {
    let name = parts[i];
    let value = parts[i + 1];
    if (name.endsWith('@base64')) {
      name = name.slice(0, -7);
      value = Buffer.from(value.replace(/=+$/, ''), 'base64url').toString('utf8');
    }
    if (!LABEL_NAME_RE.test(name) || name.startsWith('__')) bad(`improper label name "${name}"`);
    if (b.has(name)) bad(`duplicate label name "${name}"`);
    b.set(name, value);
  }
  if (!b.get('job')) bad('job name is required');
  return toSortedLabels(b);
}
