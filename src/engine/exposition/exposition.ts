/**
 * Exposition-format helpers around `ExpositionParser`: content negotiation as Prometheus 2.42 does it,
 * a whole-body parse for callers that want every sample (push gateway, import), and the text 0.0.4 writer.
 */
import type { Label, Labels } from '../tsdb/api.ts';
import { ENTRY_EOF, ENTRY_HELP, ENTRY_SERIES, ENTRY_TYPE, ENTRY_UNIT, ExpositionParser } from './exposition-parser.ts';

/** The Accept header Prometheus 2.42 sends when scraping: OpenMetrics preferred, text 0.0.4 next. */
export const SCRAPE_ACCEPT =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,' +
  'text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** True when a response Content-Type selects the OpenMetrics parser; anything else is read as text 0.0.4. */
export function isOpenMetrics(contentType: string | null | undefined): boolean {
  if (!contentType) return false;
  const semi = contentType.indexOf(';');
  const media = (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return media === 'application/openmetrics-text';
}

/** TYPE/HELP/UNIT of one metric family. */
export interface MetricMetadata { type: string; help: string; unit: string }

export interface ParsedSample { labels: Label[]; t: number; v: number }

export interface ParsedBody {
  samples: ParsedSample[];
  /** Keyed by metric family name, in order of first appearance. */
  metadata: Map<string, MetricMetadata>;
}

/** Parses a whole body; `t` is NaN for samples without a timestamp. Throws ParseError on the first bad line. */
export function parseBody(body: string, openMetrics: boolean): ParsedBody {
  const p = new ExpositionParser(body, { openMetrics });
  const samples: ParsedSample[] = [];
  const metadata = new Map<string, MetricMetadata>();
  for (let e = p.next(); e !== ENTRY_EOF; e = p.next()) {
    if (e === ENTRY_SERIES) samples.push({ labels: p.labels(), t: p.timestampMs, v: p.value });
    else recordMetadata(metadata, e, p.metricName, p.text);
  }
  return { samples, metadata };
}

/** Folds one HELP/TYPE/UNIT entry into `into`. */
export function recordMetadata(into: Map<string, MetricMetadata>, entry: number, name: string, text: string): void {
  let m = into.get(name);
  if (!m) { m = { type: 'unknown', help: '', unit: '' }; into.set(name, m); }
  if (entry === ENTRY_HELP) m.help = text;
  else if (entry === ENTRY_TYPE) m.type = text === 'untyped' ? 'unknown' : text;
  else if (entry === ENTRY_UNIT) m.unit = text;
}

/** Formats a float the way Go's `strconv.FormatFloat(v, 'g', -1, 64)` exposition writers do for ±Inf/NaN. */
export function formatSampleValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/**
 * Exactly what Go's text exposition writer prints (`strconv.FormatFloat(v, 'g', -1, 64)`): shortest digits,
 * exponent form (`1e+06`, `1.5e-05`) when the decimal exponent is below -4 or at least 6. For output
 * that other Prometheus tools read and compare (`/federate`); `formatSampleValue` keeps JS's shorter form.
 */
export function formatGoSampleValue(v: number): string {
  if (!Number.isFinite(v)) return formatSampleValue(v);
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mant, e] = v.toExponential().split('e');
  const exp = Number(e);
  if (exp >= -4 && exp < 6) return String(v);
  const abs = Math.abs(exp);
  return `${mant}e${exp < 0 ? '-' : '+'}${abs < 10 ? '0' : ''}${abs}`;
}

export function escapeLabelValue(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

export function escapeHelp(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** `name{a="b",…}` for a label set that includes `__name__`. */
export function formatSeries(labels: Labels): string {
  let name = '';
  const parts: string[] = [];
  for (const l of labels) {
    if (l.name === '__name__') name = l.value;
    else parts.push(`${l.name}="${escapeLabelValue(l.value)}"`);
  }
  return parts.length ? `${name}{${parts.join(',')}}` : name;
}
