/**
 * The scrape of one target, on the main thread: fetch with a timeout, parse the whole body (a broken line
 * fails the scrape and nothing from it is stored), map each series through a per-target cache keyed by the
 * series bytes as written (label parsing, honor_labels handling and metric relabelling run once per distinct
 * series text; a known series costs one hash, one byte comparison and one float parse), append,
 * then write the report series and staleness markers as Prometheus 2.42's `scrapeLoop` does.
 */
import type { Label } from '../tsdb/api.ts';
import type { ScrapeConfig } from './config.ts';
import { ENTRY_EOF, ENTRY_SERIES, ExpositionParser } from '../exposition/exposition-parser.ts';
import { isOpenMetrics, recordMetadata, SCRAPE_ACCEPT, type MetricMetadata } from '../exposition/exposition.ts';
import { relabel, toSortedLabels } from './relabel.ts';
import type { RefusedSamples, SampleSink } from './sample-sink.ts';
import { SampleColumns } from './sample-columns.ts';
import { SeriesTable } from './series-table.ts';
import { STALE_NAN } from '../tsdb/api.ts';
import type { TargetSpec } from './target.ts';
import { BODY_SIZE_LIMIT_ERROR, type HttpGet } from './http-get.ts';
import { formatDuration } from '../model/duration.ts';
import { HttpClient } from './http-client.ts';
import { BodyBuffer } from './body-buffer.ts';
import { checkLabelLimits } from './scrape-limits.ts';
import { ByteKeyTable, hashBytes } from '../codec/byte-key-table.ts';
import { grown } from '../codec/typed-grow.ts';

export interface ScrapeResult { health: 'up' | 'down'; error: string; samples: number; postRelabel: number; added: number }

/** Events the server turns into `prometheus_target_*` self-metrics. */
export interface ScrapeObserver {
  /** Seconds between this scrape's start and the previous one's, under the configured interval (`15s`). */
  interval(configured: string, seconds: number): void;
  /** A scrape failed on a limit: 'sample', 'body_size' or 'label'. */
  limitExceeded(kind: 'sample' | 'body_size' | 'label'): void;
  /** Samples of a scrape the storage refused (the scrape itself still succeeds, as in Prometheus). */
  refused(r: RefusedSamples): void;
  /**
   * A pool built its targets from what discovery gave it and started or stopped their loops, in `seconds`;
   * `failures` targets could not be made (no address, …).
   */
  synced(job: string, failures: number, seconds: number): void;
}

export interface LoopDeps {
  sink: SampleSink;
  now(): number;
  get: HttpGet;
  observer?: ScrapeObserver;
}

export type Health = 'up' | 'down' | 'unknown';

export class ScrapeLoop {
  readonly target: TargetSpec;
  cfg: ScrapeConfig;
  health: Health = 'unknown';
  lastError = '';
  /** ms since the epoch of the last scrape start, or 0 before the first. */
  lastScrapeMs = 0;
  lastDurationSec = 0;
  metadata = new Map<string, MetricMetadata>();
  private readonly deps: LoopDeps;
  /**
   * Series texts seen in this target's bodies, by id; per id the series it maps to (-1 when metric
   * relabelling drops it) and the scrape that last saw it.
   */
  private keys = new ByteKeyTable();
  private keySeries = new Int32Array(1024);
  private keySeen = new Int32Array(1024);
  /** Whether a key was read from a text-format body: OpenMetrics rejects some texts the text format accepts. */
  private textKeys = false;
  /**
   * The stored series of this target, by label set. Several series texts may resolve to the same labels
   * (after relabelling, or written differently), so they share one series: dedupe and staleness go by
   * series. Its `seen` is the scrape iteration that last wrote the series. The target's labels are its
   * common pairs (every series carries them unless honor_labels or relabelling changed them).
   */
  private series: SeriesTable;
  /** Series written by the previous scrape without explicit timestamps (staleness candidates), `prevCount` of them. */
  private prevSeries = new Int32Array(1024);
  private prevCount = 0;
  private curSeries = new Int32Array(1024);
  /** The current scrape's samples, reused from scrape to scrape (emptied once the sink has taken them). */
  private cols: SampleColumns;
  private iter = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private nextAtMs = 0;
  private readonly client: HttpClient;
  /** This target's bodies, read into one kept buffer (parsed before the next scrape starts). */
  private readonly body = new BodyBuffer();
  /** Set while the pool is over `target_limit`: each scrape fails with it without fetching, as Prometheus's forced error. */
  forcedError = '';

  constructor(target: TargetSpec, cfg: ScrapeConfig, deps: LoopDeps) {
    this.target = target;
    this.cfg = cfg;
    this.deps = deps;
    this.client = new HttpClient(cfg.http);
    this.series = new SeriesTable(target.labels);
    this.cols = new SampleColumns(this.series);
  }

  /** Starts scraping at this target's aligned, jittered offset within its interval. */
  start(jitterSeed: string): void {
    const interval = this.target.intervalMs;
    const now = this.deps.now();
    const offset = fnv1a(jitterSeed + this.target.key) % interval;
    let first = now - (now % interval) + offset;
    if (first < now) first += interval;
    this.nextAtMs = first;
    this.schedule();
  }

  /** Takes over the series state of a loop it replaces on reload, so continuing series are not marked stale. */
  adopt(old: ScrapeLoop): void {
    this.series = old.series;
    this.cols = new SampleColumns(this.series);
    this.prevSeries = old.prevSeries;
    this.prevCount = old.prevCount;
    this.curSeries = old.curSeries;
    // The series' `seen` values count the old loop's scrapes.
    this.iter = old.iter;
    this.metadata = old.metadata;
    this.health = old.health;
    this.lastError = old.lastError;
    this.lastScrapeMs = old.lastScrapeMs;
    this.lastDurationSec = old.lastDurationSec;
  }

  private schedule(): void {
    if (this.stopped) return;
    const delay = Math.max(0, this.nextAtMs - this.deps.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.nextAtMs += this.target.intervalMs;
      // Skip ticks missed while the process was busy rather than scraping in a burst.
      const now = this.deps.now();
      while (this.nextAtMs <= now) this.nextAtMs += this.target.intervalMs;
      this.running = this.scrapeOnce().then(() => undefined, () => undefined).finally(() => { this.running = null; this.schedule(); });
    }, delay);
  }

  /**
   * Stops the loop. With `markStale`, writes staleness markers for every series of the last scrape and for
   * the report series (the target went away); without, the state is handed to a replacement loop.
   */
  async stop(markStale: boolean): Promise<void> {
    this.stopped = true;
    if (this.timer) { clearTimeout(this.timer); this.timer = null; }
    if (this.running) await this.running;
    if (!markStale || this.lastScrapeMs === 0) return;
    const t = Math.max(this.deps.now(), this.lastScrapeMs + 1);
    const out = this.cols;
    out.clear();
    this.markAllStale(out, t);
    for (const name of REPORT_NAMES) out.push(this.reportSeries(name), t, STALE_NAN);
    const sink = this.deps.sink;
    const appended = sink.appendColumns ? sink.appendColumns(out) : sink.append(out.toSamples());
    out.clear();
    await appended.catch(() => undefined);
  }

  /** One scrape: fetch, parse, append. Never throws; the outcome is in health/lastError. */
  async scrapeOnce(): Promise<ScrapeResult> {
    const startMs = this.deps.now();
    const t0 = performance.now();
    let res: ScrapeResult;
    const samples = this.cols;
    samples.clear();
    try {
      if (this.forcedError !== '') throw new Error(this.forcedError);
      const { body, contentType } = await this.fetchBody();
      const parsed = this.parse(body, isOpenMetrics(contentType), startMs);
      res = { health: 'up', error: parsed.error, samples: parsed.scraped, postRelabel: parsed.postRelabel, added: parsed.added };
      if (parsed.error !== '') {
        // Like Prometheus's rolled-back append: nothing of this scrape is stored, its counts are still reported.
        samples.clear();
        res.health = 'down';
        this.deps.observer?.limitExceeded(parsed.error === SAMPLE_LIMIT_ERROR ? 'sample' : 'label');
      }
    } catch (e) {
      samples.clear(); // what a malformed body yielded before its broken line
      res = { health: 'down', error: (e as Error).message, samples: 0, postRelabel: 0, added: 0 };
      if (res.error === BODY_SIZE_LIMIT_ERROR) this.deps.observer?.limitExceeded('body_size');
    }
    if (this.lastScrapeMs > 0) this.deps.observer?.interval(formatDuration(this.target.intervalMs), (startMs - this.lastScrapeMs) / 1000);
    if (res.health === 'down') this.markAllStale(samples, startMs);
    const durationSec = (performance.now() - t0) / 1000;
    this.appendReport(samples, startMs, res, durationSec);
    try {
      const sink = this.deps.sink;
      const appended = sink.appendColumns ? sink.appendColumns(samples) : sink.append(samples.toSamples());
      samples.clear(); // see SampleSink.append
      const refused = await appended;
      if (refused && refused.outOfOrder + refused.duplicate + refused.outOfBounds > 0) this.deps.observer?.refused(refused);
    } catch (e) {
      res = { ...res, health: 'down', error: `appending samples: ${(e as Error).message}` };
    }
    this.health = res.health;
    this.lastError = res.error;
    this.lastScrapeMs = startMs;
    this.lastDurationSec = durationSec;
    return res;
  }

  private async fetchBody(): Promise<{ body: Uint8Array; contentType: string }> {
    const headers: Record<string, string> = {
      Accept: SCRAPE_ACCEPT, 'User-Agent': 'Prometheus/2.42.0',
      'X-Prometheus-Scrape-Timeout-Seconds': String(this.target.timeoutMs / 1000),
      ...await this.client.authHeaders(),
    };
    const opts = await this.client.getOptions(this.target.url);
    opts.maxBodyBytes = this.cfg.bodySizeLimitBytes;
    opts.into = this.body;
    const r = await this.deps.get(this.target.url, headers, this.target.timeoutMs, opts);
    if (r.status !== 200) throw new Error(`server returned HTTP status ${r.status} ${r.statusText}`.trimEnd());
    return { body: r.body, contentType: r.contentType };
  }

  /**
   * Parses the whole body into samples; throws on the first malformed line (the caller stores nothing).
   * A limit exceeded (`sample_limit`, label limits) comes back as `error` with the counts so far, and the
   * series state is left as it was, since nothing of this scrape will be stored.
   */
  private parse(body: Uint8Array, om: boolean, startMs: number): { scraped: number; postRelabel: number; added: number; error: string } {
    const p = new ExpositionParser(body, { openMetrics: om });
    const iter = ++this.iter;
    const samples = this.cols, table = this.series;
    let current = this.curSeries, curCount = 0;
    const metadata = new Map<string, MetricMetadata>();
    let scraped = 0, added = 0, postRelabel = 0;
    const honorTs = this.cfg.honorTimestamps;
    // Targets write their series in the same order every scrape, and texts get ids in the order first seen:
    // the line after text `id` is most likely text `id + 1`, which one byte comparison confirms without hashing
    // and without scanning the line's labels (`expectSeries`).
    let guess = 0;
    const expect = !om || !this.textKeys;
    for (;;) {
      if (expect) p.expectSeries(this.keys, guess);
      const e = p.next();
      if (e === ENTRY_EOF) break;
      if (e !== ENTRY_SERIES) { recordMetadata(metadata, e, p.metricName, p.text); continue; }
      scraped++;
      const b = p.bytes, from = p.seriesStart, to = p.seriesEnd;
      let id = p.expectedHit ? guess : -1;
      const hash = id < 0 ? hashBytes(b, from, to) : 0;
      if (id < 0) id = this.keys.find(b, from, to, hash);
      if (id < 0) {
        const final = this.finalLabels(p.labels());
        const limitErr = final === null ? '' : checkLabelLimits(this.cfg, final);
        if (limitErr !== '') return { scraped, postRelabel, added, error: limitErr };
        const sid = final === null ? -1 : table.intern(final);
        id = this.keys.insert(b, from, to, hash);
        if (!om) this.textKeys = true;
        if (id === this.keySeen.length) { this.keySeen = grown(this.keySeen); this.keySeries = grown(this.keySeries); }
        this.keySeries[id] = sid;
        if (sid >= 0 && table.seen(sid) === 0) added++;
      }
      this.keySeen[id] = iter;
      guess = id + 1;
      const sid = this.keySeries[id];
      if (sid < 0) continue;
      postRelabel++;
      if (table.seen(sid) === iter) continue; // a duplicate in this body
      table.setSeen(sid, iter);
      const hasTs = honorTs && !Number.isNaN(p.timestampMs);
      samples.push(sid, hasTs ? p.timestampMs : startMs, p.value);
      if (!hasTs) {
        if (curCount === current.length) current = this.curSeries = grown(current);
        current[curCount++] = sid;
      }
    }
    if (this.cfg.sampleLimit > 0 && samples.n > this.cfg.sampleLimit) {
      return { scraped, postRelabel, added, error: SAMPLE_LIMIT_ERROR };
    }
    const prev = this.prevSeries;
    for (let i = 0; i < this.prevCount; i++) if (table.seen(prev[i]) !== iter) samples.push(prev[i], startMs, STALE_NAN);
    this.curSeries = prev;
    this.prevSeries = current;
    this.prevCount = curCount;
    this.metadata = metadata;
    this.evict(iter);
    return { scraped, postRelabel, added, error: '' };
  }

  /**
   * Drops cache entries and series not seen for two scrapes (every 8 scrapes, once there are 1024); they are
   * re-parsed if the series comes back. Runs between the parse and the append of a scrape, after the previous
   * append has settled, so no append in flight holds the old series ids; this scrape's columns are renumbered.
   */
  private evict(iter: number): void {
    if (this.keys.size < 1024 || iter % 8 !== 0) return;
    const n = this.keys.size, seen = this.keySeen;
    let stale = 0;
    for (let id = 0; id < n; id++) if (seen[id] < iter - 2) stale++;
    const table = this.series, ns = table.size;
    let staleSeries = 0;
    for (let sid = 0; sid < ns; sid++) if (table.seen(sid) < iter - 2) staleSeries++;
    if (stale === 0 && staleSeries === 0) return;
    // A kept text's series was seen with it, so it is kept too; only dropped texts can point at dropped series.
    const sremap = staleSeries > 0 ? table.compact((sid) => table.seen(sid) >= iter - 2) : null;
    const remap = this.keys.compact((id) => seen[id] >= iter - 2);
    const series = new Int32Array(Math.max(1024, this.keySeries.length));
    const kept = new Int32Array(Math.max(1024, seen.length));
    for (let id = 0; id < n; id++) {
      const to = remap[id];
      if (to < 0) continue;
      const sid = this.keySeries[id];
      series[to] = sid < 0 || sremap === null ? sid : sremap[sid];
      kept[to] = seen[id];
    }
    this.keySeries = series;
    this.keySeen = kept;
    if (sremap !== null) {
      // This scrape's samples and staleness candidates were all seen now, so they are all kept.
      const prev = this.prevSeries, cols = this.cols;
      for (let i = 0; i < this.prevCount; i++) prev[i] = sremap[prev[i]];
      for (let i = 0; i < cols.n; i++) cols.sids[i] = sremap[cols.sids[i]];
    }
  }

  /** Applies target labels and metric relabelling to a newly seen series text; null when dropped. */
  private finalLabels(parsed: Label[]): Label[] | null {
    const labels = this.targetLabelsApplied(parsed);
    return this.cfg.metricRelabelConfigs.length ? relabel(labels, this.cfg.metricRelabelConfigs) : labels;
  }

  /**
   * honor_labels: true keeps the scraped value on conflict; false renames it to `exported_<name>`. Both
   * inputs are sorted, so the common case (no conflict) is a linear merge without a map.
   */
  private targetLabelsApplied(parsed: Label[]): Label[] {
    const tl = this.target.labels;
    const out: Label[] = [];
    let i = 0, j = 0;
    while (i < parsed.length && j < tl.length) {
      const a = parsed[i], b = tl[j];
      if (a.name < b.name) { out.push(a); i++; continue; }
      if (a.name > b.name) { out.push(b); j++; continue; }
      return this.targetLabelsConflict(parsed);
    }
    while (i < parsed.length) out.push(parsed[i++]);
    while (j < tl.length) out.push(tl[j++]);
    return out;
  }

  private targetLabelsConflict(parsed: Label[]): Label[] {
    const b = new Map<string, string>();
    for (const l of parsed) b.set(l.name, l.value);
    for (const l of this.target.labels) {
      const scraped = b.get(l.name) ?? '';
      if (this.cfg.honorLabels) {
        if (scraped === '') b.set(l.name, l.value);
      } else {
        if (scraped !== '') b.set(`exported_${l.name}`, scraped);
        b.set(l.name, l.value);
      }
    }
    return toSortedLabels(b);
  }

  private markAllStale(out: SampleColumns, t: number): void {
    const prev = this.prevSeries;
    for (let i = 0; i < this.prevCount; i++) out.push(prev[i], t, STALE_NAN);
    this.prevCount = 0;
  }

  private appendReport(out: SampleColumns, t: number, r: ScrapeResult, durationSec: number): void {
    const values = [r.health === 'up' ? 1 : 0, durationSec, r.samples, r.postRelabel, r.added];
    for (let i = 0; i < REPORT_NAMES.length; i++) out.push(this.reportSeries(REPORT_NAMES[i]), t, values[i]);
  }

  /**
   * The series id of the report series `name`, looked up each time (five per scrape): eviction renumbers
   * series. Marked seen by the last parse, so eviction keeps it (a report series is written every scrape).
   */
  private reportSeries(name: string): number {
    const ls: Label[] = [{ name: '__name__', value: name }];
    for (const l of this.target.labels) ls.push(l);
    ls.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const sid = this.series.intern(ls);
    this.series.setSeen(sid, this.iter);
    return sid;
  }
}

/** Prometheus's `errSampleLimit`. */
const SAMPLE_LIMIT_ERROR = 'sample limit exceeded';

const REPORT_NAMES = ['up', 'scrape_duration_seconds', 'scrape_samples_scraped', 'scrape_samples_post_metric_relabeling', 'scrape_series_added'];

/** 32-bit FNV-1a; spreads targets over the interval deterministically. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
