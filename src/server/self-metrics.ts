/**
 * Tessera's own metrics, exposed at `/metrics` on the metrics port in the Prometheus text format 0.0.4.
 * Counters and histograms are keyed by their label values; gauges are read by callbacks at scrape time.
 */

import { escapeHelp, escapeLabelValue, formatGoSampleValue, formatSampleValue } from '../engine/exposition/exposition.ts';
import { observeBucketed, type BucketCounts } from '../engine/model/bucket-counts.ts';
import { quantileOfSorted, RecentObservations, type RecentObservationsData } from '../engine/model/recent-observations.ts';

type LabelValues = readonly string[];

interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary';
  labelNames: readonly string[];
}

const DEFAULT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class Counter {
  readonly values = new Map<string, { labels: LabelValues; value: number }>();
  constructor(readonly family: Family) {}
  inc(labels: LabelValues = [], by = 1): void {
    this.seriesOf(labels).value += by;
  }

  /**
   * The series of `labels`, created at 0 when absent. A caller that counts the same labels on every request
   * keeps it and adds to `value` directly: no key string is joined and hashed per call.
   */
  seriesOf(labels: LabelValues): { labels: LabelValues; value: number } {
    const key = labels.join('\u0000');
    let e = this.values.get(key);
    if (!e) { e = { labels, value: 0 }; this.values.set(key, e); }
    return e;
  }
}

/** One histogram series (see `Histogram.series`). */
export interface HistogramSeries extends BucketCounts { labels: LabelValues; counts: Float64Array }

export class Histogram {
  readonly series = new Map<string, HistogramSeries>();
  constructor(readonly family: Family, readonly buckets: readonly number[] = DEFAULT_BUCKETS) {}
  observe(labels: LabelValues, value: number): void {
    this.observeSeries(this.seriesOf(labels), value);
  }

  /** The series of `labels`, created empty when absent; kept by callers as `Counter.seriesOf`'s is. */
  seriesOf(labels: LabelValues): HistogramSeries {
    const key = labels.join('\u0000');
    let s = this.series.get(key);
    if (!s) { s = { labels, counts: new Float64Array(this.buckets.length), sum: 0, count: 0 }; this.series.set(key, s); }
    return s;
  }

  observeSeries(s: HistogramSeries, value: number): void {
    observeBucketed(s, this.buckets, value);
  }
}

/**
 * A summary with the quantiles its Prometheus counterpart exports (`quantiles`; most have 0.5, 0.9 and 0.99),
 * computed over each series' latest observations (`RecentObservations`) rather than client_golang's decaying
 * 10-minute window; sum and count are exact. A series with no observation yet shows NaN quantiles, as Go's does.
 */
export class Summary {
  readonly series = new Map<string, SummarySeries>();
  private readonly own = new Map<string, RecentObservations>();
  constructor(readonly family: Family, readonly quantiles: readonly number[]) {}
  observe(labels: LabelValues, value: number): void {
    this.seriesOf(labels).observe(value);
  }

  /** The observations of `labels`, created empty if new: Prometheus shows its summaries before their first observation. */
  seriesOf(labels: LabelValues): RecentObservations {
    const key = labels.join('\u0000');
    let o = this.own.get(key);
    if (!o) {
      const made = new RecentObservations();
      this.own.set(key, made);
      this.series.set(key, { labels, read: () => made.data() });
      o = made;
    }
    return o;
  }

  /** A series whose observations are kept elsewhere (by other threads), read at each render. */
  readSeries(labels: LabelValues, read: () => RecentObservationsData): void {
    this.series.set(labels.join('\u0000'), { labels, read });
  }
}

interface SummarySeries { labels: LabelValues; read(): RecentObservationsData }

/** client_golang's objectives for most of Prometheus's own summaries. */
const DEFAULT_QUANTILES = [0.5, 0.9, 0.99];
/** The objectives Prometheus gives its scrape-interval, target-sync and rule-group summaries. */
export const EXTENDED_QUANTILES = [0.01, 0.05, 0.5, 0.9, 0.99];

export class Gauge {
  constructor(readonly family: Family, readonly read: () => Iterable<[LabelValues, number]>) {}
}

export class SelfMetrics {
  private readonly items: (Counter | Histogram | Gauge | Summary)[] = [];
  private readonly collectors: (() => Promise<void>)[] = [];

  /** Registers work to run before each scrape (e.g. asking the workers for their figures). */
  addCollector(collect: () => Promise<void>): void {
    this.collectors.push(collect);
  }

  /** Runs the collectors (a failing one leaves its previous figures), then renders. */
  async collectAndRender(): Promise<string> {
    await Promise.allSettled(this.collectors.map((c) => c()));
    return this.render();
  }

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    const c = new Counter({ name, help, type: 'counter', labelNames });
    this.items.push(c);
    return c;
  }

  histogram(name: string, help: string, labelNames: readonly string[] = [], buckets?: readonly number[]): Histogram {
    const h = new Histogram({ name, help, type: 'histogram', labelNames }, buckets);
    this.items.push(h);
    return h;
  }

  summary(name: string, help: string, labelNames: readonly string[] = [], quantiles: readonly number[] = DEFAULT_QUANTILES): Summary {
    const m = new Summary({ name, help, type: 'summary', labelNames }, quantiles);
    this.items.push(m);
    return m;
  }

  /** A value read by `read` at every scrape; `type` 'counter' for totals kept elsewhere (CPU seconds, WAL bytes). */
  gauge(name: string, help: string, labelNames: readonly string[], read: () => Iterable<[LabelValues, number]>,
    type: 'gauge' | 'counter' = 'gauge'): Gauge {
    const g = new Gauge({ name, help, type, labelNames }, read);
    this.items.push(g);
    return g;
  }

  /** Renders every family in the text exposition format 0.0.4. */
  render(): string {
    const out: string[] = [];
    for (const item of this.items) {
      const f = item.family;
      out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
      if (item instanceof Counter) {
        for (const { labels, value } of item.values.values()) out.push(`${f.name}${fmtLabels(f.labelNames, labels)} ${formatSampleValue(value)}`);
      } else if (item instanceof Gauge) {
        for (const [labels, value] of item.read()) out.push(`${f.name}${fmtLabels(f.labelNames, labels)} ${formatSampleValue(value)}`);
      } else if (item instanceof Summary) {
        for (const s of item.series.values()) {
          const { values, sum, count } = s.read();
          const sorted = values.sort((a, b) => a - b);
          for (const q of item.quantiles) {
            out.push(`${f.name}${fmtLabels([...f.labelNames, 'quantile'], [...s.labels, String(q)])} ${formatSampleValue(quantileOfSorted(sorted, q))}`);
          }
          out.push(`${f.name}_sum${fmtLabels(f.labelNames, s.labels)} ${formatSampleValue(sum)}`);
          out.push(`${f.name}_count${fmtLabels(f.labelNames, s.labels)} ${count}`);
        }
      } else {
        for (const s of item.series.values()) {
          for (let i = 0; i < item.buckets.length; i++) {
            out.push(`${f.name}_bucket${fmtLabels([...f.labelNames, 'le'], [...s.labels, formatGoSampleValue(item.buckets[i])])} ${s.counts[i]}`);
          }
          out.push(`${f.name}_bucket${fmtLabels([...f.labelNames, 'le'], [...s.labels, '+Inf'])} ${s.count}`);
          out.push(`${f.name}_sum${fmtLabels(f.labelNames, s.labels)} ${formatSampleValue(s.sum)}`);
          out.push(`${f.name}_count${fmtLabels(f.labelNames, s.labels)} ${s.count}`);
        }
      }
    }
    return out.join('\n') + '\n';
  }
}

function fmtLabels(names: readonly string[], values: LabelValues): string {
  if (names.length === 0) return '';
  const parts: string[] = [];
  for (let i = 0; i < names.length; i++) parts.push(`${names[i]}="${escapeLabelValue(values[i] ?? '')}"`);
  return `{${parts.join(',')}}`;
}

