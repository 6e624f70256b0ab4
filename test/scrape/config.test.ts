/** Config loading: defaults as Prometheus 2.42 fills them, and refusal of invalid configs (`cases/config-errors.yml`). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loadConfig, defaultConfig } from '../../src/engine/scrape/config.ts';
import { buildTargets } from '../../src/engine/scrape/target.ts';
import { formatDuration, parseDurationMs } from '../../src/engine/model/duration.ts';

const errorCases = parse(readFileSync(new URL('./cases/config-errors.yml', import.meta.url), 'utf8')) as { name: string; config: string; error: string }[];

for (const c of errorCases) {
  test(`config refused: ${c.name}`, () => {
    assert.throws(() => loadConfig(c.config, '/etc/prometheus.yml'), (e: Error) => {
      assert.ok(e.message.startsWith('parsing YAML file /etc/prometheus.yml: '), e.message);
      assert.ok(e.message.includes(c.error), `${JSON.stringify(e.message)} lacks ${JSON.stringify(c.error)}`);
      return true;
    });
  });
}

test('empty config gets Prometheus defaults', () => {
  const cfg = loadConfig('', '/x/p.yml');
  assert.equal(cfg.global.scrapeIntervalMs, 60_000);
  assert.equal(cfg.global.scrapeTimeoutMs, 10_000);
  assert.equal(cfg.global.evaluationIntervalMs, 60_000);
  assert.equal(cfg.yaml, 'global:\n  scrape_interval: 1m\n  scrape_timeout: 10s\n  evaluation_interval: 1m\n');
});

test('scrape config inherits globals; timeout clamps to a short interval', () => {
  const cfg = loadConfig(`
global: {scrape_interval: 15s, external_labels: {region: eu}}
rule_files: [rules/*.yml]
scrape_configs:
  - job_name: fast
    scrape_interval: 2s
    params: {module: [http_2xx]}
    static_configs: [{targets: ["127.0.0.1:9100"], labels: {env: prod}}]
  - job_name: slow
`, '/etc/prom/p.yml');
  const [fast, slow] = cfg.scrapeConfigs;
  assert.equal(fast.scrapeIntervalMs, 2000);
  assert.equal(fast.scrapeTimeoutMs, 2000);
  assert.equal(slow.scrapeIntervalMs, 15_000);
  assert.equal(slow.scrapeTimeoutMs, 10_000);
  assert.equal(slow.metricsPath, '/metrics');
  assert.equal(slow.honorTimestamps, true);
  assert.deepEqual(cfg.global.externalLabels, [{ name: 'region', value: 'eu' }]);
  assert.deepEqual(cfg.ruleFiles, ['/etc/prom/rules/*.yml']);
  const t = buildTargets(fast, fast.staticConfigs);
  assert.equal(t.active.length, 1);
  assert.equal(t.active[0].url, 'http://127.0.0.1:9100/metrics?module=http_2xx');
  assert.deepEqual(t.active[0].labels, [
    { name: 'env', value: 'prod' }, { name: 'instance', value: '127.0.0.1:9100' }, { name: 'job', value: 'fast' },
  ]);
  assert.deepEqual(t.active[0].discoveredLabels.map((l) => l.name),
    ['__address__', '__metrics_path__', '__param_module', '__scheme__', '__scrape_interval__', '__scrape_timeout__', 'env', 'job']);
});

test('target relabelling drops targets, rewrites address and adds a default port', () => {
  const cfg = loadConfig(`
scrape_configs:
  - job_name: j
    relabel_configs:
      - source_labels: [__address__]
        regex: "drop.*"
        action: drop
      - source_labels: [__address__]
        regex: "(.*):1234"
        target_label: __address__
        replacement: "$1"
      - target_label: __metrics_path__
        replacement: /probe
    static_configs: [{targets: ["dropme:1", "host:1234"]}]
`, '/p.yml');
  const t = buildTargets(cfg.scrapeConfigs[0], cfg.scrapeConfigs[0].staticConfigs);
  assert.equal(t.dropped.length, 1);
  assert.equal(t.active.length, 1);
  assert.equal(t.active[0].url, 'http://host:80/probe');
  assert.equal(t.active[0].labels.find((l) => l.name === 'instance')?.value, 'host:80');
});

test('built-in config scrapes self and the push gateway with honor_labels', () => {
  const cfg = defaultConfig('127.0.0.1:9090');
  assert.deepEqual(cfg.scrapeConfigs.map((c) => [c.jobName, c.metricsPath, c.honorLabels]),
    [['tessera', '/metrics', false], ['pushgateway', '/pushgateway/metrics', true]]);
  // Built without the YAML parser, it is what the same file loads to (its /status/config YAML included).
  const file = 'global:\n  scrape_interval: 15s\n  scrape_timeout: 10s\n  evaluation_interval: 15s\nscrape_configs:\n' +
    '  - job_name: tessera\n    static_configs:\n      - targets: ["127.0.0.1:9090"]\n' +
    '  - job_name: pushgateway\n    honor_labels: true\n    metrics_path: /pushgateway/metrics\n' +
    '    static_configs:\n      - targets: ["127.0.0.1:9090"]\n';
  const loaded = loadConfig(file, '');
  assert.equal(cfg.yaml, loaded.yaml);
  assert.deepEqual(JSON.parse(JSON.stringify(cfg)), JSON.parse(JSON.stringify(loaded)));
  assert.match(cfg.yaml, /- job_name: pushgateway\n  honor_labels: true\n/);
});

test('durations parse and print as Prometheus does', () => {
  for (const [s, ms, back] of [['1h30m', 5_400_000, '1h30m'], ['90m', 5_400_000, '1h30m'], ['0', 0, '0s'],
    ['2w', 14 * 86_400_000, '2w'], ['15d', 15 * 86_400_000, '15d'], ['500ms', 500, '500ms'], ['1y', 365 * 86_400_000, '1y']] as const) {
    assert.equal(parseDurationMs(s), ms, s);
    assert.equal(formatDuration(ms), back, s);
  }
  assert.throws(() => parseDurationMs('1m1h'), /not a valid duration string/);
});

test('/status/config YAML is byte-identical to what Prometheus 2.42 prints for the same file', () => {
  // Captured from the real prometheus 2.42.0+ds (Debian) started with this file.
  const want = 'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1m\nscrape_configs:\n- job_name: t\n' +
    '  honor_timestamps: true\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  metrics_path: /metrics\n  scheme: http\n' +
    '  follow_redirects: true\n  enable_http2: true\n  static_configs:\n  - targets:\n    - 127.0.0.1:19399\n';
  const cfg = loadConfig('global: {scrape_interval: 1s, scrape_timeout: 1s}\nscrape_configs:\n  - job_name: t\n    static_configs: [{targets: ["127.0.0.1:19399"]}]\n', '/p.yml');
  assert.equal(cfg.yaml, want);
});
