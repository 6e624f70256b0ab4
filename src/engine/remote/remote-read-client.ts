/**
 * Reading another store through one `remote_read` entry, as Prometheus 2.42's remote-read client does:
 * a selector is sent only when it has every `required_matchers` pair as an equality matcher; with
 * `filter_external_labels` (the default) the external labels are added as equality matchers and removed
 * from the returned series; without `read_recent`, only the time before the local storage's oldest sample
 * is asked for (the local storage is complete after it).
 */
import type { FetchedSeries, Label, Matcher } from '../tsdb/api.ts';
import { MATCH_EQUAL } from '../tsdb/api.ts';
import type { RemoteReadConfig } from '../scrape/config.ts';
import { HttpClient } from '../scrape/http-client.ts';
import { decodeReadResponse, encodeReadRequest, RESPONSE_SAMPLES, type ReadMatcher } from './remote-read-codec.ts';

export class RemoteReadClient {
  readonly cfg: RemoteReadConfig;
  private readonly external: readonly Label[];
  private readonly client: HttpClient;

  constructor(cfg: RemoteReadConfig, externalLabels: readonly Label[]) {
    this.cfg = cfg;
    this.external = externalLabels;
    this.client = new HttpClient(cfg.http);
  }

  /**
   * The time range to ask this endpoint for, or null when it is not asked at all. `localMinMs` is the oldest
   * sample in local storage (Infinity when empty).
   */
  range(matchers: readonly Matcher[], mintMs: number, maxtMs: number, localMinMs: number): [number, number] | null {
    for (const [name, value] of Object.entries(this.cfg.requiredMatchers)) {
      if (!matchers.some((m) => m.type === MATCH_EQUAL && m.name === name && m.value === value)) return null;
    }
    if (this.cfg.readRecent) return [mintMs, maxtMs];
    if (mintMs > localMinMs) return null;
    return [mintMs, Math.min(maxtMs, localMinMs)];
  }

  async read(matchers: readonly Matcher[], mintMs: number, maxtMs: number): Promise<FetchedSeries[]> {
    const sent: ReadMatcher[] = matchers.map((m) => ({ type: m.type as ReadMatcher['type'], name: m.name, value: m.value }));
    const added = new Set<string>();
    if (this.cfg.filterExternalLabels) {
      for (const l of this.external) {
        if (matchers.some((m) => m.name === l.name)) continue;
        sent.push({ type: 0, name: l.name, value: l.value });
        added.add(l.name);
      }
    }
    const body = await encodeReadRequest({ queries: [{ startMs: mintMs, endMs: maxtMs, matchers: sent }], acceptedResponseTypes: [RESPONSE_SAMPLES] });
    const r = await fetch(this.cfg.url, {
      method: 'POST', body, signal: AbortSignal.timeout(this.cfg.remoteTimeoutMs),
      headers: {
        ...this.cfg.headers, ...await this.client.authHeaders(), 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'snappy',
        'User-Agent': 'Prometheus/2.42.0', 'X-Prometheus-Remote-Read-Version': '0.1.0',
      },
    });
    if (r.status !== 200) throw new Error(`remote server ${this.cfg.url} returned HTTP status ${r.status} ${r.statusText}: ${(await r.text()).slice(0, 256)}`);
    const [series = []] = await decodeReadResponse(new Uint8Array(await r.arrayBuffer()));
    return series.map((s) => ({
      labels: s.labels.filter((l) => !added.has(l.name) && l.value !== '').sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      t: Float64Array.from(s.t), v: Float64Array.from(s.v),
    }));
  }
}
