/**
 * HTTP service discovery (Prometheus 2.42 `discovery/http`): GET the URL every `refresh_interval`, expect
 * 200 and `application/json` holding a list of `{targets, labels}`; each group gets `__meta_url`.
 */
import type { HttpSdConfig, TargetGroup } from './sd-config.ts';
import { parseTargetGroup } from './sd-config.ts';
import { httpGet, type HttpGet } from './http-get.ts';
import { HttpClient } from './http-client.ts';
import { RefreshDiscovery } from './refresh-discovery.ts';

const JSON_TYPE_RE = /^application\/json(;.*)?$/i;

export class HttpDiscovery extends RefreshDiscovery {
  private readonly cfg: HttpSdConfig;
  private readonly client: HttpClient;
  private readonly get: HttpGet;

  constructor(cfg: HttpSdConfig, onChange: (groups: TargetGroup[]) => void, onError: (msg: string) => void, get: HttpGet = httpGet) {
    super(cfg.refreshIntervalMs, onChange, (msg) => onError(`http discovery ${cfg.url}: ${msg}`));
    this.cfg = cfg;
    this.client = new HttpClient(cfg.http);
    this.get = get;
  }

  protected async refresh(): Promise<TargetGroup[]> {
    const headers = {
      Accept: 'application/json', 'User-Agent': 'Prometheus/2.42.0',
      'X-Prometheus-Refresh-Interval-Seconds': String(this.cfg.refreshIntervalMs / 1000),
      ...await this.client.authHeaders(),
    };
    const r = await this.get(this.cfg.url, headers, this.cfg.refreshIntervalMs, await this.client.getOptions(this.cfg.url));
    if (r.status !== 200) throw new Error(`server returned HTTP status ${r.status} ${r.statusText}`.trimEnd());
    if (!JSON_TYPE_RE.test(r.contentType.trim())) throw new Error(`unsupported content type ${JSON.stringify(r.contentType)}`);
    const raw: unknown = JSON.parse(r.body.toString('utf8'));
    if (!Array.isArray(raw)) throw new Error('json: cannot unmarshal into Go value of type []*targetgroup.Group');
    return raw.map((g, i) => {
      if (g === null) throw new Error('nil target group item found');
      const tg = parseTargetGroup(g, `${this.cfg.url}:${i}`);
      tg.labels = { ...tg.labels, __meta_url: this.cfg.url };
      return tg;
    });
  }
}
