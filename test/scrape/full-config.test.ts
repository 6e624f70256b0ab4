/**
 * `cases/full-config/prometheus.yml` uses every field Prometheus 2.42 documents. It loads, the form
 * `/api/v1/status/config` prints (defaults filled, secrets hidden) loads again to the same form, and with
 * Debian's promtool installed both the file and the printed form pass `promtool check config`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { loadConfig } from '../../src/engine/scrape/config.ts';

const DIR = fileURLToPath(new URL('./cases/full-config/', import.meta.url));
const FILE = join(DIR, 'prometheus.yml');
const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));
const noPromtool = PROMTOOL ? false : 'promtool not installed (Debian package prometheus): the check against Prometheus 2.42 is skipped';

test('every documented field loads with its value', () => {
  const cfg = loadConfig(readFileSync(FILE, 'utf8'), FILE);
  const [full, bearer, authz, oauth] = cfg.scrapeConfigs;
  assert.equal(full.bodySizeLimitBytes, 10 * 1024 * 1024);
  assert.deepEqual([full.sampleLimit, full.labelLimit, full.labelNameLengthLimit, full.labelValueLengthLimit, full.targetLimit], [100, 30, 200, 500, 10]);
  assert.deepEqual(full.http.basicAuth, { username: 'u', password: '', passwordFile: join(DIR, 'password') });
  assert.equal(full.http.followRedirects, false);
  assert.equal(full.http.enableHttp2, false);
  assert.equal(full.http.proxyUrl, 'http://proxy.example:3128');
  assert.equal(full.http.tls.minVersion, 'TLS12');
  assert.equal(full.httpSdConfigs[0].http.authorization?.credentialsFile, join(DIR, 'token'));
  assert.deepEqual(full.dnsSdConfigs.map((d) => [d.type, d.port, d.refreshIntervalMs]), [['SRV', 0, 30_000], ['A', 9100, 30_000]]);
  assert.deepEqual(Object.keys(full.unsupported), ['ec2_sd_configs']);
  assert.deepEqual(bearer.http.authorization, { type: 'Bearer', credentials: '', credentialsFile: join(DIR, 'token') });
  assert.equal(authz.http.authorization?.type, 'Token');
  assert.deepEqual(oauth.http.oauth2?.scopes, ['a', 'b']);
  assert.equal(cfg.alerting.alertmanagers[0].fileSdConfigs[0].files[0], join(DIR, 'am/*.yml'));
  assert.equal(cfg.storage?.outOfOrderTimeWindowMs, 600_000);
  assert.equal(cfg.tracing?.clientType, 'http');
  assert.equal(cfg.remoteWrite[0].queue.retryOn429, true);
  assert.equal(cfg.remoteWrite[0].metadata.sendIntervalMs, 60_000);
  assert.equal(cfg.remoteWrite[1].sigv4?.region, 'eu-west-1');
  assert.equal(cfg.remoteRead[0].filterExternalLabels, false);
  assert.deepEqual(cfg.remoteRead[0].requiredMatchers, { job: 'x' });
});

test('the printed config loads again to the same printed config, secrets hidden', () => {
  const cfg = loadConfig(readFileSync(FILE, 'utf8'), FILE);
  const again = loadConfig(cfg.yaml, FILE);
  assert.equal(again.yaml, cfg.yaml);
  assert.ok(!cfg.yaml.includes('s3cret') && !cfg.yaml.includes(': SK') && !cfg.yaml.includes('credentials: c'), cfg.yaml);
  const printed = parse(cfg.yaml);
  const full = printed.scrape_configs[0];
  // Prometheus's key order for a scrape config, limits and HTTP client settings included.
  assert.deepEqual(Object.keys(full), ['job_name', 'honor_labels', 'honor_timestamps', 'params', 'scrape_interval', 'scrape_timeout',
    'metrics_path', 'scheme', 'body_size_limit', 'sample_limit', 'target_limit', 'label_limit', 'label_name_length_limit',
    'label_value_length_limit', 'basic_auth', 'proxy_url', 'proxy_connect_header', 'tls_config', 'follow_redirects', 'enable_http2',
    'relabel_configs', 'metric_relabel_configs', 'dns_sd_configs', 'ec2_sd_configs', 'file_sd_configs', 'http_sd_configs', 'static_configs']);
  assert.equal(full.body_size_limit, '10MiB');
  assert.deepEqual(full.proxy_connect_header, { 'X-Proxy-Key': ['<secret>'] });
  assert.deepEqual(full.relabel_configs[0], { source_labels: ['a'], separator: ';', regex: '(.*)', target_label: 'b', replacement: '$1', action: 'replace' });
  assert.deepEqual(printed.scrape_configs[1].authorization, { type: 'Bearer', credentials_file: join(DIR, 'token') });
  assert.deepEqual(printed.alerting.alertmanagers[0].timeout, '5s');
  assert.deepEqual(Object.keys(printed), ['global', 'alerting', 'rule_files', 'scrape_configs', 'storage', 'tracing', 'remote_write', 'remote_read']);
  assert.deepEqual(printed.remote_write[1].queue_config, {
    capacity: 2500, max_shards: 200, min_shards: 1, max_samples_per_send: 500, batch_send_deadline: '5s', min_backoff: '30ms', max_backoff: '5s',
  });
  assert.deepEqual(printed.remote_write[1].metadata_config, { send: true, send_interval: '1m', max_samples_per_send: 500 });
  assert.equal(printed.remote_read[0].filter_external_labels, false);
});

test('a minimal config prints the defaults Prometheus 2.42 prints', () => {
  const cfg = loadConfig(`
alerting: {alertmanagers: [{static_configs: [{targets: ["127.0.0.1:9093"]}]}]}
remote_write: [{url: "http://127.0.0.1:9/write"}]
remote_read: [{url: "http://127.0.0.1:9/read"}]
`, '/p.yml');
  // Captured from Prometheus 2.42.0's /api/v1/status/config for the same file.
  assert.equal(cfg.yaml, `global:
  scrape_interval: 1m
  scrape_timeout: 10s
  evaluation_interval: 1m
alerting:
  alertmanagers:
  - follow_redirects: true
    enable_http2: true
    scheme: http
    timeout: 10s
    api_version: v2
    static_configs:
    - targets:
      - 127.0.0.1:9093
remote_write:
- url: http://127.0.0.1:9/write
  remote_timeout: 30s
  follow_redirects: true
  enable_http2: true
  queue_config:
    capacity: 2500
    max_shards: 200
    min_shards: 1
    max_samples_per_send: 500
    batch_send_deadline: 5s
    min_backoff: 30ms
    max_backoff: 5s
  metadata_config:
    send: true
    send_interval: 1m
    max_samples_per_send: 500
remote_read:
- url: http://127.0.0.1:9/read
  remote_timeout: 1m
  follow_redirects: true
  enable_http2: true
  filter_external_labels: true
`);
});

test('service discoveries Tessera does not implement still load', () => {
  const file = join(DIR, 'unsupported-sd.yml');
  const cfg = loadConfig(readFileSync(file, 'utf8'), file);
  assert.deepEqual(Object.keys(cfg.scrapeConfigs[0].unsupported), ['azure_sd_configs', 'consul_sd_configs', 'kubernetes_sd_configs']);
  assert.equal(cfg.scrapeConfigs[0].staticConfigs[0].targets[0], '127.0.0.1:9');
  assert.equal(loadConfig(cfg.yaml, file).yaml, cfg.yaml);
});

test('promtool 2.42 accepts the file and the printed form', { skip: noPromtool }, () => {
  const cfg = loadConfig(readFileSync(FILE, 'utf8'), FILE);
  const tmp = mkdtempSync(join(tmpdir(), 'tessera-full-config-'));
  try {
    const printed = join(tmp, 'printed.yml');
    writeFileSync(printed, cfg.yaml);
    for (const f of [FILE, printed]) {
      const out = execFileSync(PROMTOOL!, ['check', 'config', '--syntax-only', f], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      assert.match(out, /SUCCESS/);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
