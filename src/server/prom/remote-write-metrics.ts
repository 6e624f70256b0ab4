/**
 * Prometheus's `prometheus_remote_storage_*` families for the remote-write queues: counters typed as
 * counters, labelled `remote_name` and `url` as in 2.42, kept per endpoint across reloads (a queue rebuilt
 * by a reload continues its counters), plus the highest-timestamp gauges the standard "remote write
 * behind" alert compares.
 */
import { createHash } from 'node:crypto';
import type { SelfMetrics } from '../self-metrics.ts';
import type { RemoteWriteConfig } from '../../engine/scrape/config.ts';
import { newRemoteWriteStats, type RemoteWriteQueue, type RemoteWriteStats } from '../../engine/remote/remote-write-queue.ts';
import type { IngestSample } from '../../engine/scrape/sample-sink.ts';
import { isStaleNaN } from '../../engine/tsdb/api.ts';

/** The `remote_name` label: the configured name, else a short hash of the endpoint (Prometheus hashes the config). */
export function remoteName(cfg: RemoteWriteConfig): string {
  return cfg.name || createHash('sha256').update(cfg.url).digest('hex').slice(0, 6);
}

export class RemoteWriteMetrics {
  private readonly stats = new Map<string, RemoteWriteStats>();
  /** Samples handed to remote storage (every ingested sample), and the newest timestamp among them (ms). */
  samplesIn = 0;
  highestInMs = 0;
  queues: RemoteWriteQueue[] = [];

  /** The counters of the endpoint `cfg` describes, the same object across reloads. */
  statsFor(cfg: RemoteWriteConfig): RemoteWriteStats {
    const key = `${remoteName(cfg)}\u0000${cfg.url}`;
    let s = this.stats.get(key);
    if (!s) { s = newRemoteWriteStats(); this.stats.set(key, s); }
    return s;
  }

  observeIn(samples: readonly IngestSample[]): void {
    if (this.queues.length === 0) return;
    this.samplesIn += samples.length;
    for (let i = 0; i < samples.length; i++) {
      const s = samples[i];
      if (s.t > this.highestInMs && !isStaleNaN(s.v)) this.highestInMs = s.t;
    }
  }

  register(metrics: SelfMetrics): void {
    const names = ['remote_name', 'url'];
    const perQueue = (pick: (s: RemoteWriteStats, q: RemoteWriteQueue) => number) => () =>
      this.queues.map((q) => [[remoteName(q.cfg), q.cfg.url], pick(q.stats, q)] as [string[], number]);
    const counter = (name: string, help: string, pick: (s: RemoteWriteStats) => number): void => {
      metrics.gauge(name, help, names, perQueue(pick), 'counter');
    };
    counter('prometheus_remote_storage_samples_total', 'Total number of samples sent to remote storage.', (s) => s.sent);
    counter('prometheus_remote_storage_samples_failed_total', 'Total number of samples which failed on send to remote storage, non-recoverable errors.', (s) => s.failed);
    counter('prometheus_remote_storage_samples_retried_total', 'Total number of samples which failed on send to remote storage but were retried because the send error was recoverable.', (s) => s.retried);
    counter('prometheus_remote_storage_samples_dropped_total', 'Total number of samples which were dropped after being read from the WAL before being sent via remote write, either via relabelling or unintentionally because of an unknown reference ID.', (s) => s.dropped);
    counter('prometheus_remote_storage_bytes_total', 'The total number of bytes of data (not metadata) sent by the queue after compression.', (s) => s.bytes);
    metrics.gauge('prometheus_remote_storage_samples_pending', 'The number of samples pending in the queues shards to be sent to the remote storage.', names, perQueue((s) => s.pending));
    metrics.gauge('prometheus_remote_storage_queue_highest_sent_timestamp_seconds', 'Timestamp from a WAL sample, the highest timestamp successfully sent by this queue, in seconds since epoch.', names, perQueue((s) => s.highestSentMs / 1000));
    // One sender per queue: the shard gauges dashboards plot read 1.
    for (const [name, help] of [['prometheus_remote_storage_shards', 'The number of shards used for parallel sending to the remote storage.'],
      ['prometheus_remote_storage_shards_desired', 'The number of shards that the queues shard calculation wants to run based on the rate of samples in vs. samples out.']]) {
      metrics.gauge(name, help, names, perQueue(() => 1));
    }
    metrics.gauge('prometheus_remote_storage_shards_max', 'The maximum number of shards that the queue is allowed to run.', names, perQueue((_s, q) => q.cfg.queue.maxShards));
    metrics.gauge('prometheus_remote_storage_shards_min', 'The minimum number of shards that the queue is allowed to run.', names, perQueue((_s, q) => q.cfg.queue.minShards));
    metrics.gauge('prometheus_remote_storage_shard_capacity', 'The capacity of each shard of the queue used for parallel sending to the remote storage.', names, perQueue((_s, q) => q.cfg.queue.capacity));
    metrics.gauge('prometheus_remote_storage_samples_in_total', 'Samples in to remote storage, compare to samples out for queue managers.', [], () => [[[], this.samplesIn]], 'counter');
    metrics.gauge('prometheus_remote_storage_highest_timestamp_in_seconds', 'Highest timestamp that has come into the remote storage via the Appender interface, in seconds since epoch.', [], () => [[[], this.highestInMs / 1000]]);
  }
}
