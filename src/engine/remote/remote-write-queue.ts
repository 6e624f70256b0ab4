/**
 * Remote-write sending for one `remote_write` entry: samples are relabelled (external labels first, then
 * `write_relabel_configs`), buffered, and sent in order in batches of `max_samples_per_send` (or when the
 * oldest buffered sample is `batch_send_deadline` old). A batch is retried with exponential back-off from
 * `min_backoff` to `max_backoff` on network errors and 5xx replies (and 429 when `retry_on_http_429`), so
 * delivery is at-least-once while the process runs. 4xx replies are not retried (the receiver refused the
 * data), as Prometheus does. The buffer holds at most `capacity × max_shards` samples; beyond that the
 * oldest are dropped and counted, because unlike Prometheus this queue does not re-read the WAL.
 */
import type { Label } from '../tsdb/api.ts';
import type { RemoteWriteConfig } from '../scrape/config.ts';
import { HttpClient } from '../scrape/http-client.ts';
import { relabel } from '../scrape/relabel.ts';
import { encodeWriteRequest } from './remote-write-codec.ts';
import type { IngestSample } from '../scrape/sample-sink.ts';
import { APS_SERVICE, resolveSigV4, signV4 } from './sigv4.ts';

export type PostFn = (url: string, body: Uint8Array, headers: Record<string, string>, timeoutMs: number) => Promise<{ status: number; text: string }>;

/** Counters of one remote-write endpoint; the caller may keep them across reloads (Prometheus's counters survive one). */
export interface RemoteWriteStats {
  sent: number; failed: number; retried: number; dropped: number; pending: number;
  /** Bytes of request bodies sent (compressed). */
  bytes: number;
  /** Newest sample timestamp (ms) delivered, or 0. */
  highestSentMs: number;
}

export function newRemoteWriteStats(): RemoteWriteStats {
  return { sent: 0, failed: 0, retried: 0, dropped: 0, pending: 0, bytes: 0, highestSentMs: 0 };
}

export class RemoteWriteQueue {
  readonly cfg: RemoteWriteConfig;
  readonly stats: RemoteWriteStats;
  private readonly externalLabels: Label[];
  private readonly post: PostFn;
  private readonly onError: (msg: string) => void;
  private buf: IngestSample[] = [];
  private readonly relabelCache = new WeakMap<readonly Label[], Label[] | null>();
  private sending: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private wake: (() => void) | null = null;
  private readonly client: HttpClient;

  constructor(cfg: RemoteWriteConfig, externalLabels: Label[], post: PostFn, onError: (msg: string) => void, stats = newRemoteWriteStats()) {
    this.cfg = cfg;
    this.stats = stats;
    stats.pending = 0;
    this.externalLabels = externalLabels;
    this.post = post;
    this.onError = onError;
    this.client = new HttpClient(cfg.http);
  }

  /** Adds samples to the send buffer (never blocks the caller). */
  enqueue(samples: readonly IngestSample[]): void {
    if (this.stopped) return;
    for (let i = 0; i < samples.length; i++) {
      const labels = this.mapLabels(samples[i].labels);
      if (labels !== null) this.buf.push({ labels, t: samples[i].t, v: samples[i].v });
    }
    const max = this.cfg.queue.capacity * this.cfg.queue.maxShards;
    if (this.buf.length > max) {
      const drop = this.buf.length - max;
      this.buf.splice(0, drop);
      this.stats.dropped += drop;
    }
    this.stats.pending = this.buf.length;
    this.kick();
  }

  /** Sends what is buffered, retrying, for at most `deadlineMs`; then gives up on the rest. */
  async stop(deadlineMs: number): Promise<void> {
    const end = Date.now() + deadlineMs;
    while ((this.buf.length || this.sending) && Date.now() < end) {
      this.kick(true);
      await Promise.race([this.sending ?? Promise.resolve(), new Promise((r) => setTimeout(r, 50))]);
    }
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
  }

  private mapLabels(labels: readonly Label[]): Label[] | null {
    let out = this.relabelCache.get(labels);
    if (out !== undefined) return out;
    let withExt = labels as Label[];
    if (this.externalLabels.length) {
      const m = new Map(labels.map((l) => [l.name, l.value] as [string, string]));
      for (const l of this.externalLabels) if (!m.has(l.name)) m.set(l.name, l.value);
      withExt = [...m].map(([name, value]) => ({ name, value })).sort((a, b) => (a.name < b.name ? -1 : 1));
    }
    out = this.cfg.writeRelabelConfigs.length ? relabel(withExt, this.cfg.writeRelabelConfigs) : withExt;
    this.relabelCache.set(labels, out);
    return out;
  }

  private kick(force = false): void {
    if (this.sending || this.buf.length === 0) return;
    if (!force && this.buf.length < this.cfg.queue.maxSamplesPerSend) {
      this.timer ??= setTimeout(() => { this.timer = null; this.kick(true); }, this.cfg.queue.batchSendDeadlineMs);
      return;
    }
    if (this.timer) { clearTimeout(this.timer); this.timer = null; }
    const batch = this.buf.splice(0, this.cfg.queue.maxSamplesPerSend);
    this.stats.pending = this.buf.length;
    this.sending = this.sendWithRetry(batch).finally(() => {
      this.sending = null;
      if (this.buf.length) this.kick(this.buf.length >= this.cfg.queue.maxSamplesPerSend);
    });
  }

  private async sendWithRetry(batch: IngestSample[]): Promise<void> {
    const body = await encodeWriteRequest(batch);
    const headers: Record<string, string> = {
      ...this.cfg.headers, 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf',
      'User-Agent': 'Prometheus/2.42.0', 'X-Prometheus-Remote-Write-Version': '0.1.0',
    };
    let backoff = this.cfg.queue.minBackoffMs;
    for (;;) {
      let retry: boolean;
      try {
        Object.assign(headers, await this.client.authHeaders());
        if (this.cfg.sigv4) {
          let signer;
          try { signer = resolveSigV4(this.cfg.sigv4); } catch (e) {
            // A configuration problem: retrying cannot help, as with Prometheus's failed signing round trip.
            this.onError(`remote write to ${this.cfg.url}: ${(e as Error).message}`);
            this.stats.failed += batch.length;
            return;
          }
          Object.assign(headers, signV4({ method: 'POST', url: this.cfg.url, headers, body }, signer.region, APS_SERVICE, signer.cred, new Date()));
        }
        const r = await this.post(this.cfg.url, body, headers, this.cfg.remoteTimeoutMs);
        if (r.status >= 200 && r.status < 300) {
          this.stats.sent += batch.length;
          this.stats.bytes += body.length;
          for (let i = 0; i < batch.length; i++) if (batch[i].t > this.stats.highestSentMs) this.stats.highestSentMs = batch[i].t;
          return;
        }
        retry = r.status >= 500 || (r.status === 429 && this.cfg.queue.retryOn429);
        this.onError(`remote write to ${this.cfg.url}: server returned HTTP status ${r.status}: ${r.text.slice(0, 256)}`);
      } catch (e) {
        retry = true;
        this.onError(`remote write to ${this.cfg.url}: ${(e as Error).message}`);
      }
      if (!retry || this.stopped) { this.stats.failed += batch.length; return; }
      this.stats.retried += batch.length;
      await new Promise<void>((r) => { this.wake = r; setTimeout(r, backoff); });
      this.wake = null;
      backoff = Math.min(backoff * 2, this.cfg.queue.maxBackoffMs);
    }
  }
}

/** POST over fetch with a timeout. */
export const fetchPost: PostFn = async (url, body, headers, timeoutMs) => {
  const r = await fetch(url, { method: 'POST', body, headers, signal: AbortSignal.timeout(timeoutMs) });
  return { status: r.status, text: await r.text() };
};
