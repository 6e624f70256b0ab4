/**
 * Tessera's `/metrics` on the metrics port, through a real server that scrapes, evaluates a rule and
 * remote-writes: the families Prometheus's self-monitoring alerts and dashboards use are there with
 * Prometheus's types and labels, `promtool check metrics` (Debian's, where installed) finds nothing to
 * complain about, and the remote-write counters carry on across a reload.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../support/server.ts';
import { waitFor } from '../support/wait-for.ts';

const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));
const dir = mkdtempSync(join(tmpdir(), 'tessera-self-metrics-'));

let received = 0;
let scrapes = 0;
/**
 * Explicit timestamps the head refuses from the second scrape on: a duplicate, an earlier one, and one 2 h old
 * (out of bounds once the head holds anything, which it may not at the first scrape).
 */
const T = Date.now() - 60_000;
const peer = createServer((req, res) => {
  if (req.url === '/write') { received++; req.resume(); req.on('end', () => { res.writeHead(204); res.end(); }); return; }
  res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' });
  scrapes++;
  res.end(`# HELP peer_up Whether the peer is up.\n# TYPE peer_up gauge\npeer_up 1\npeer_dup ${scrapes} ${T}\npeer_ooo 1 ${T - scrapes * 1000}\npeer_old 1 ${T - 2 * 3_600_000}\n`);
});
await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
const port = (peer.address() as { port: number }).port;
after(() => { peer.close(); rmSync(dir, { recursive: true, force: true }); });

writeFileSync(join(dir, 'rules.yml'), 'groups:\n  - name: g\n    interval: 1s\n    rules:\n      - record: r\n        expr: vector(1)\n');
const cfg = join(dir, 'prometheus.yml');
writeFileSync(cfg, `global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: [rules.yml]
scrape_configs:
  - job_name: peer
    static_configs: [{targets: ["127.0.0.1:${port}"]}]
  - job_name: broken
    static_configs: [{targets: ["127.0.0.1:${port}"]}]
    relabel_configs: [{target_label: __address__, replacement: ""}]
remote_write:
  - url: http://127.0.0.1:${port}/write
    name: peer
    queue_config: {batch_send_deadline: 100ms}
`);
const server = await startServer({ services: ['metrics'], args: ['--config.file', cfg, '--web.enable-lifecycle'] });
after(() => server.destroy());

const scrapeSelf = async (): Promise<string> => (await fetch(`${server.promUrl}/metrics`)).text();
const value = (text: string, series: string): number | null => {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? null : Number(line.slice(series.length + 1));
};
const rw = `{remote_name="peer",url="http://127.0.0.1:${port}/write"}`;

/** Family → the type Prometheus 2.42 gives it. */
const FAMILIES: Record<string, string> = {
  prometheus_build_info: 'gauge', prometheus_ready: 'gauge',
  prometheus_config_last_reload_successful: 'gauge', prometheus_config_last_reload_success_timestamp_seconds: 'gauge',
  prometheus_tsdb_head_series: 'gauge', prometheus_tsdb_head_chunks: 'gauge', prometheus_tsdb_head_max_time_seconds: 'gauge',
  prometheus_tsdb_blocks_loaded: 'gauge', prometheus_tsdb_compactions_total: 'counter', prometheus_tsdb_compactions_failed_total: 'counter',
  prometheus_tsdb_retention_limit_bytes: 'gauge', prometheus_tsdb_storage_blocks_bytes: 'gauge',
  prometheus_tsdb_head_samples_appended_total: 'counter', prometheus_tsdb_head_series_created_total: 'counter',
  prometheus_tsdb_head_series_removed_total: 'counter', prometheus_tsdb_head_chunks_created_total: 'counter',
  prometheus_tsdb_head_chunks_removed_total: 'counter', prometheus_tsdb_compactions_triggered_total: 'counter',
  prometheus_tsdb_time_retentions_total: 'counter', prometheus_tsdb_size_retentions_total: 'counter',
  prometheus_tsdb_out_of_order_samples_total: 'counter', prometheus_tsdb_out_of_bound_samples_total: 'counter',
  prometheus_target_scrapes_sample_duplicate_timestamp_total: 'counter', prometheus_target_scrapes_sample_out_of_order_total: 'counter',
  prometheus_target_scrapes_sample_out_of_bounds_total: 'counter',
  prometheus_target_metadata_cache_entries: 'gauge', prometheus_target_metadata_cache_bytes: 'gauge',
  prometheus_tsdb_reloads_total: 'counter', prometheus_tsdb_reloads_failures_total: 'counter',
  prometheus_target_scrape_pool_sync_total: 'counter', prometheus_target_sync_failed_total: 'counter',
  prometheus_tsdb_compaction_duration_seconds: 'histogram', prometheus_tsdb_compaction_chunk_size_bytes: 'histogram',
  prometheus_tsdb_compaction_chunk_samples: 'histogram', prometheus_tsdb_compaction_chunk_range_seconds: 'histogram',
  prometheus_tsdb_checkpoint_creations_total: 'counter', prometheus_tsdb_checkpoint_creations_failed_total: 'counter',
  prometheus_tsdb_checkpoint_deletions_total: 'counter', prometheus_tsdb_checkpoint_deletions_failed_total: 'counter',
  prometheus_tsdb_wal_truncations_total: 'counter', prometheus_tsdb_wal_truncations_failed_total: 'counter',
  prometheus_tsdb_wal_corruptions_total: 'counter', prometheus_tsdb_head_series_not_found_total: 'counter',
  prometheus_tsdb_data_replay_duration_seconds: 'gauge',
  prometheus_target_interval_length_seconds: 'summary', prometheus_target_scrape_pool_targets: 'gauge',
  prometheus_target_scrapes_exceeded_sample_limit_total: 'counter', prometheus_sd_discovered_targets: 'gauge',
  prometheus_engine_queries: 'gauge', prometheus_engine_queries_concurrent_max: 'gauge', prometheus_engine_query_duration_seconds: 'summary',
  prometheus_rule_evaluations_total: 'counter', prometheus_rule_evaluation_failures_total: 'counter', prometheus_rule_group_iterations_missed_total: 'counter',
  prometheus_rule_group_last_duration_seconds: 'gauge', prometheus_notifications_dropped_total: 'counter', prometheus_notifications_queue_capacity: 'gauge',
  prometheus_remote_storage_samples_total: 'counter', prometheus_remote_storage_samples_failed_total: 'counter',
  prometheus_remote_storage_samples_pending: 'gauge', prometheus_remote_storage_highest_timestamp_in_seconds: 'gauge',
  prometheus_remote_storage_queue_highest_sent_timestamp_seconds: 'gauge', prometheus_remote_storage_shards: 'gauge',
  prometheus_http_requests_total: 'counter', prometheus_http_request_duration_seconds: 'histogram', prometheus_http_response_size_bytes: 'histogram',
  prometheus_rule_evaluation_duration_seconds: 'summary', prometheus_rule_group_duration_seconds: 'summary',
  prometheus_target_sync_length_seconds: 'summary', prometheus_tsdb_wal_segment_current: 'gauge', prometheus_tsdb_clean_start: 'gauge', prometheus_tsdb_wal_fsync_duration_seconds: 'summary',
  prometheus_tsdb_head_gc_duration_seconds: 'summary', prometheus_tsdb_wal_truncate_duration_seconds: 'summary',
  prometheus_tsdb_tombstone_cleanup_seconds: 'histogram',
  process_open_fds: 'gauge', process_max_fds: 'gauge', process_virtual_memory_bytes: 'gauge', process_virtual_memory_max_bytes: 'gauge',
};

test('self-monitoring families are exposed with Prometheus types and labels', async () => {
  await waitFor('samples remote-written', async () => (value(await scrapeSelf(), `prometheus_remote_storage_samples_total${rw}`) ?? 0) > 0);
  await fetch(`${server.promUrl}/api/v1/query?query=up`);
  const text = await waitFor('a scrape interval observed', async () => {
    const t = await scrapeSelf();
    return t.includes('prometheus_target_interval_length_seconds_count{interval="1s"}') ? t : null;
  });
  for (const [name, type] of Object.entries(FAMILIES)) assert.ok(text.includes(`\n# TYPE ${name} ${type}\n`), `${name} ${type}`);
  assert.equal(value(text, 'prometheus_target_scrape_pool_targets{scrape_job="peer"}'), 1);
  // The broken job's one target has no address left after relabelling: a target sync failure at each sync.
  assert.ok(value(text, 'prometheus_target_scrape_pool_sync_total{scrape_job="peer"}')! >= 1);
  assert.equal(value(text, 'prometheus_target_sync_failed_total{scrape_job="peer"}'), 0);
  assert.equal(value(text, 'prometheus_target_sync_failed_total{scrape_job="broken"}'), value(text, 'prometheus_target_scrape_pool_sync_total{scrape_job="broken"}'));
  assert.ok(value(text, 'prometheus_target_sync_failed_total{scrape_job="broken"}')! >= 1);
  assert.equal(value(text, 'prometheus_target_scrape_pool_targets{scrape_job="broken"}'), 0);
  // One family with metadata (peer_up): its help and type, in bytes, as Prometheus sizes its cache.
  assert.equal(value(text, 'prometheus_target_metadata_cache_entries{scrape_job="peer"}'), 1);
  assert.equal(value(text, 'prometheus_target_metadata_cache_bytes{scrape_job="peer"}'), 'Whether the peer is up.'.length + 'gauge'.length);
  assert.match(text, /^prometheus_build_info\{branch="tessera",goarch="[^"]+",goos="[^"]+",goversion="node v[^"]+",revision="tessera-[^"]+",version="2\.42\.0"\} 1$/m);
  assert.ok((value(text, 'prometheus_tsdb_head_series') ?? 0) > 0);
  // Scrapes and rule results reach the head: the ingestion-rate panels and PrometheusNotIngestingSamples read this.
  assert.ok((value(text, 'prometheus_tsdb_head_samples_appended_total{type="float"}') ?? 0) > 0);
  assert.ok(value(text, 'prometheus_tsdb_head_series_created_total')! >= value(text, 'prometheus_tsdb_head_series')!);
  assert.ok(value(text, 'prometheus_tsdb_compactions_triggered_total')! >= 1, 'the pass at start counts');
  assert.ok(value(text, 'prometheus_tsdb_data_replay_duration_seconds')! > 0, 'opening the shards took some time');
  // No compaction yet: the histogram is there with Prometheus's buckets, all empty.
  assert.equal(value(text, 'prometheus_tsdb_compaction_duration_seconds_bucket{le="8192"}'), 0);
  // So are the head cut's chunk histograms, their bounds written as Prometheus writes them (Go's shortest %g).
  assert.equal(value(text, 'prometheus_tsdb_compaction_chunk_range_seconds_bucket{le="2.62144e+07"}'), 0);
  assert.equal(value(text, 'prometheus_tsdb_compaction_chunk_size_bytes_bucket{le="2767.921875"}'), 0);
  assert.equal(value(text, 'prometheus_tsdb_compaction_chunk_samples_bucket{le="345.990234375"}'), 0);
  assert.ok((value(text, 'prometheus_remote_storage_highest_timestamp_in_seconds') ?? 0) > 1.6e9);
  assert.ok((value(text, `prometheus_remote_storage_queue_highest_sent_timestamp_seconds${rw}`) ?? 0) > 1.6e9);
  assert.ok(value(text, 'prometheus_http_requests_total{code="200",handler="/api/v1/query"}')! >= 1);
  assert.ok(value(text, 'prometheus_engine_query_duration_seconds_count{slice="inner_eval"}')! >= 1);
});

test('summaries carry the quantiles Prometheus gives each; the lock, WAL and process figures are the server\'s own', async () => {
  const text = await waitFor('a rule group evaluated', async () => {
    const t = await scrapeSelf();
    return (value(t, 'prometheus_rule_group_duration_seconds_count') ?? 0) >= 1 ? t : null;
  });
  const quantilesOf = (family: string, labels = ''): string[] =>
    [...text.matchAll(new RegExp(`^${family}\\{${labels}quantile="([^"]+)"\\} `, 'gm'))].map((m) => m[1]);
  const five = ['0.01', '0.05', '0.5', '0.9', '0.99'];
  assert.deepEqual(quantilesOf('prometheus_rule_group_duration_seconds'), five);
  assert.deepEqual(quantilesOf('prometheus_rule_evaluation_duration_seconds'), ['0.5', '0.9', '0.99']);
  assert.deepEqual(quantilesOf('prometheus_target_sync_length_seconds', 'scrape_job="peer",'), five);
  assert.deepEqual(quantilesOf('prometheus_target_interval_length_seconds', 'interval="1s",'), five);
  assert.deepEqual(quantilesOf('prometheus_engine_query_duration_seconds', 'slice="queue_time",'), ['0.5', '0.9', '0.99']);
  assert.ok(value(text, 'prometheus_rule_evaluation_duration_seconds_count')! >= value(text, 'prometheus_rule_group_duration_seconds_count')!, 'one rule per group iteration');
  assert.ok(value(text, 'prometheus_target_sync_length_seconds_count{scrape_job="peer"}')! >= 1);
  // Scrapes and rule results are appended, each batch fsynced by its shard's WAL; the thread counts include the
  // fsyncs of directories too, which are not timed.
  assert.deepEqual(quantilesOf('prometheus_tsdb_wal_fsync_duration_seconds'), ['0.5', '0.9', '0.99']);
  // Sum and count only, as Prometheus registers them; no head cut yet in this server's life.
  assert.deepEqual(quantilesOf('prometheus_tsdb_head_gc_duration_seconds'), []);
  assert.equal(value(text, 'prometheus_tsdb_head_gc_duration_seconds_count'), 0);
  assert.equal(value(text, 'prometheus_tsdb_wal_truncate_duration_seconds_count'), 0);
  const fsyncs = value(text, 'prometheus_tsdb_wal_fsync_duration_seconds_count')!;
  const threadFsyncs = [...text.matchAll(/^tessera_wal_fsyncs_total\{thread="\d+"\} (\S+)$/gm)].reduce((a, m) => a + Number(m[1]), 0);
  assert.ok(fsyncs >= 1 && fsyncs <= threadFsyncs, `${fsyncs} timed of ${threadFsyncs} shard fsyncs`);
  assert.ok(value(text, 'prometheus_tsdb_wal_fsync_duration_seconds_sum')! > 0);
  assert.ok(value(text, 'prometheus_tsdb_wal_fsync_duration_seconds{quantile="0.99"}')! >= value(text, 'prometheus_tsdb_wal_fsync_duration_seconds{quantile="0.5"}')!);
  // A fresh data directory: the lock was created, not taken over.
  assert.equal(value(text, 'prometheus_tsdb_clean_start'), 1);
  // The newest segment file of the shards' WALs.
  const tsdb = join(server.dataDir, 'tsdb');
  const segments = readdirSync(tsdb).filter((d) => d.startsWith('shard-'))
    .flatMap((d) => readdirSync(join(tsdb, d, 'wal')).filter((f) => /^\d{8}$/.test(f)).map(Number));
  assert.equal(value(text, 'prometheus_tsdb_wal_segment_current'), Math.max(...segments));
  const limits = readFileSync(`/proc/${server.pid}/limits`, 'utf8');
  assert.equal(value(text, 'process_max_fds'), Number(/^Max open files\s+(\d+)/m.exec(limits)![1]));
  const fds = readdirSync(`/proc/${server.pid}/fd`).length;
  assert.ok(Math.abs(value(text, 'process_open_fds')! - fds) < 20, `${value(text, 'process_open_fds')} open fds reported, ${fds} listed`);
  const vsize = Number(readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ')[20]);
  assert.ok(Math.abs(value(text, 'process_virtual_memory_bytes')! - vsize) < 512 * 1024 * 1024, 'virtual memory as /proc shows it');
});

test('samples a scrape brings that the head refuses are counted by reason, and the scrape stays up', async () => {
  const text = await waitFor('a second scrape of the peer refused', async () => {
    const t = await scrapeSelf();
    return (value(t, 'prometheus_target_scrapes_sample_duplicate_timestamp_total') ?? 0) >= 1 ? t : null;
  });
  // Each later scrape brings one duplicate (peer_dup), one earlier sample (peer_ooo) and one too old (peer_old):
  // the counts move together.
  const dup = value(text, 'prometheus_target_scrapes_sample_duplicate_timestamp_total')!;
  assert.ok(value(text, 'prometheus_target_scrapes_sample_out_of_order_total')! >= dup, 'out of order');
  assert.ok(value(text, 'prometheus_target_scrapes_sample_out_of_bounds_total')! >= dup, 'out of bounds');
  assert.ok(value(text, 'prometheus_tsdb_out_of_order_samples_total{type="float"}')! >= dup);
  assert.ok(value(text, 'prometheus_tsdb_out_of_bound_samples_total{type="float"}')! >= dup);
  assert.equal(value(text, 'prometheus_tsdb_out_of_order_samples_total{type="histogram"}'), 0);
  assert.equal(value(text, 'prometheus_tsdb_head_samples_appended_total{type="histogram"}'), 0);
  const targets = await (await fetch(`${server.promUrl}/api/v1/targets`)).json() as { data: { activeTargets: { scrapePool: string; health: string }[] } };
  assert.equal(targets.data.activeTargets.find((t) => t.scrapePool === 'peer')?.health, 'up');
});

test('promtool check metrics passes on /metrics', { skip: PROMTOOL ? false : 'promtool not installed (Debian package prometheus): skipped' }, async () => {
  const text = await scrapeSelf();
  // promtool prints lint problems and exits 1 when there are any.
  const out = execFileSync(PROMTOOL!, ['check', 'metrics'], { input: text, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  assert.equal(out, '');
});

test('remote-write counters carry on across a reload', async () => {
  const before = value(await scrapeSelf(), `prometheus_remote_storage_samples_total${rw}`)!;
  assert.ok(before > 0);
  assert.equal((await fetch(`${server.promUrl}/-/reload`, { method: 'POST' })).status, 200);
  const after = value(await scrapeSelf(), `prometheus_remote_storage_samples_total${rw}`)!;
  assert.ok(after >= before, `${after} < ${before}`);
  assert.ok(received > 0);
});

test('a reload that meets a damaged block directory counts as a failed TSDB reload; the next one succeeds', async () => {
  const before = await scrapeSelf();
  const total = value(before, 'prometheus_tsdb_reloads_total')!, failed = value(before, 'prometheus_tsdb_reloads_failures_total')!;
  assert.ok(total >= 1, 'the blocks read at open count');
  const damaged = join(server.dataDir, 'tsdb', '01ARZ3NDEKTSV4RRFFQ69G5FAV'); // a block directory without meta.json
  mkdirSync(damaged);
  try {
    const r = await fetch(`${server.promUrl}/-/reload`, { method: 'POST' });
    assert.equal(r.status, 500);
    assert.match(await r.text(), /no meta\.json/);
  } finally {
    rmSync(damaged, { recursive: true });
  }
  assert.equal((await fetch(`${server.promUrl}/-/reload`, { method: 'POST' })).status, 200);
  const after = await scrapeSelf();
  assert.equal(value(after, 'prometheus_tsdb_reloads_failures_total'), failed + 1);
  assert.ok(value(after, 'prometheus_tsdb_reloads_total')! >= total + 2);
});
