/**
 * `prometheus_target_*`, `prometheus_sd_discovered_targets` and `prometheus_build_info` for the scrape side,
 * under Prometheus 2.42's names, types and labels: the interval actually observed between scrapes (the
 * "scrapes are slow" alert), targets per pool, target syncs and their failures, the metadata cache, scrapes
 * failed on each limit, and scraped samples the storage refused.
 */
import { EXTENDED_QUANTILES, type SelfMetrics } from '../self-metrics.ts';
import type { ScrapeManager } from '../../engine/scrape/scrape-manager.ts';
import type { ScrapeObserver } from '../../engine/scrape/scrape-loop.ts';
import type { MetricMetadata } from '../../engine/exposition/exposition.ts';

export function registerScrapeMetrics(metrics: SelfMetrics, manager: () => ScrapeManager, build: Record<string, string>): ScrapeObserver {
  metrics.gauge('prometheus_build_info', "A metric with a constant '1' value labeled by version, revision, branch, goversion from which prometheus was built, and the goos and goarch for the build.",
    ['branch', 'goarch', 'goos', 'goversion', 'revision', 'version'],
    () => [[[build.branch, process.arch, process.platform, build.goVersion, build.revision, build.version], 1]]);
  const intervals = metrics.summary('prometheus_target_interval_length_seconds', 'Actual intervals between scrapes.', ['interval'], EXTENDED_QUANTILES);
  const pools = () => manager().snapshot();
  const limits = { sample: 0, body_size: 0, label: 0 };
  const refused = { outOfOrder: 0, duplicate: 0, outOfBounds: 0 };
  /** Per job, kept across reloads (a reload makes new pools for the same jobs) and shown for the jobs configured. */
  const syncs = new Map<string, { total: number; failed: number }>();
  const perJob = (pick: (s: { total: number; failed: number }) => number) => () =>
    pools().map((p) => [[p.name], pick(syncs.get(p.name) ?? { total: 0, failed: 0 })] as [string[], number]);
  metrics.gauge('prometheus_target_scrape_pool_sync_total', 'Total number of syncs that were executed on a scrape pool.', ['scrape_job'], perJob((s) => s.total), 'counter');
  // PrometheusTargetSyncFailure reads this.
  metrics.gauge('prometheus_target_sync_failed_total', 'Total number of target sync failures.', ['scrape_job'], perJob((s) => s.failed), 'counter');
  const syncLength = metrics.summary('prometheus_target_sync_length_seconds', 'Actual interval to sync the scrape pool.', ['scrape_job'], EXTENDED_QUANTILES);
  metrics.gauge('prometheus_target_scrape_pools_total', 'Total number of scrape pool creation attempts.', [], () => [[[], pools().length]], 'counter');
  metrics.gauge('prometheus_target_scrape_pool_targets', 'Current number of targets in this scrape pool.', ['scrape_job'],
    () => pools().map((p) => [[p.name], p.loops.length] as [string[], number]));
  metrics.gauge('prometheus_sd_discovered_targets', 'Current number of discovered targets.', ['config', 'name'],
    () => pools().map((p) => [[p.name, 'scrape'], p.loops.length + p.dropped.length] as [string[], number]));
  // The metadata each pool's targets sent in their last scrape. PrometheusNotIngestingSamples fires only where this is
  // above 0, so without it the alert could not fire for a server that only scrapes.
  metrics.gauge('prometheus_target_metadata_cache_entries', 'Total number of metric metadata entries in the cache', ['scrape_job'],
    () => pools().map((p) => [[p.name], p.loops.reduce((n, l) => n + l.metadata.size, 0)] as [string[], number]));
  metrics.gauge('prometheus_target_metadata_cache_bytes', 'The number of bytes that are currently used for storing metric metadata in the cache', ['scrape_job'],
    () => pools().map((p) => [[p.name], p.loops.reduce((n, l) => n + metadataBytes(l.metadata), 0)] as [string[], number]));
  metrics.gauge('prometheus_target_scrapes_exceeded_sample_limit_total', 'Total number of scrapes that hit the sample limit and were rejected.', [], () => [[[], limits.sample]], 'counter');
  metrics.gauge('prometheus_target_scrapes_exceeded_body_size_limit_total', 'Total number of scrapes that hit the body size limit', [], () => [[[], limits.body_size]], 'counter');
  metrics.gauge('prometheus_target_scrape_pool_exceeded_label_limits_total', 'Total number of times scrape pools hit the label limits, during sync or style rejections.', [], () => [[[], limits.label]], 'counter');
  metrics.gauge('prometheus_target_scrape_pool_exceeded_target_limit_total', 'Total number of times scrape pools hit the target limit, during sync or config reload.', [],
    () => [[[], pools().filter((p) => p.cfg.targetLimit > 0 && p.loops.length > p.cfg.targetLimit).length]], 'counter');
  // The PrometheusDuplicateTimestamps and PrometheusOutOfOrderTimestamps alerts read these.
  metrics.gauge('prometheus_target_scrapes_sample_duplicate_timestamp_total', 'Total number of samples rejected due to duplicate timestamps but different values.', [], () => [[[], refused.duplicate]], 'counter');
  metrics.gauge('prometheus_target_scrapes_sample_out_of_order_total', 'Total number of samples rejected due to not being out of the expected order.', [], () => [[[], refused.outOfOrder]], 'counter');
  metrics.gauge('prometheus_target_scrapes_sample_out_of_bounds_total', 'Total number of samples rejected due to timestamp falling outside of the time bounds.', [], () => [[[], refused.outOfBounds]], 'counter');
  return {
    interval: (configured, seconds) => intervals.observe([configured], seconds),
    limitExceeded: (kind) => { limits[kind]++; },
    refused: (r) => { refused.outOfOrder += r.outOfOrder; refused.duplicate += r.duplicate; refused.outOfBounds += r.outOfBounds; },
    synced: (job, failures, seconds) => {
      syncLength.observe([job], seconds);
      const s = syncs.get(job) ?? { total: 0, failed: 0 };
      s.total++;
      s.failed += failures;
      syncs.set(job, s);
    },
  };
}

/** Prometheus's size of a metadata cache: the bytes of each entry's help, unit and type (not its metric name). */
function metadataBytes(metadata: ReadonlyMap<string, MetricMetadata>): number {
  let n = 0;
  for (const m of metadata.values()) n += Buffer.byteLength(m.help) + Buffer.byteLength(m.unit) + Buffer.byteLength(m.type);
  return n;
}
