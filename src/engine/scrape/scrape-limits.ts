/**
 * The per-scrape label limits of a scrape config (`label_limit`, `label_name_length_limit`,
 * `label_value_length_limit`), checked on each new series after metric relabelling, with Prometheus
 * 2.42's messages (`verifyLabelLimits`): lengths are UTF-8 bytes (Go's `len`), Go's `%.50s` truncates the
 * metric and label names to 50 characters and `%.50q` quotes the truncated value.
 */
import type { Label } from '../tsdb/api.ts';
import type { ScrapeConfig } from './config.ts';

/** '' when `labels` (a series after relabelling) is within the limits, else the error that fails the scrape. */
export function checkLabelLimits(cfg: ScrapeConfig, labels: readonly Label[]): string {
  const met = trunc(labels.find((l) => l.name === '__name__')?.value ?? '');
  if (cfg.labelLimit > 0 && labels.length > cfg.labelLimit) {
    return `label_limit exceeded (metric: ${met}, number of labels: ${labels.length}, limit: ${cfg.labelLimit})`;
  }
  if (cfg.labelNameLengthLimit === 0 && cfg.labelValueLengthLimit === 0) return '';
  for (const l of labels) {
    const nameLen = Buffer.byteLength(l.name);
    if (cfg.labelNameLengthLimit > 0 && nameLen > cfg.labelNameLengthLimit) {
      return `label_name_length_limit exceeded (metric: ${met}, label name: ${trunc(l.name)}, length: ${nameLen}, limit: ${cfg.labelNameLengthLimit})`;
    }
    const valueLen = Buffer.byteLength(l.value);
    if (cfg.labelValueLengthLimit > 0 && valueLen > cfg.labelValueLengthLimit) {
      return `label_value_length_limit exceeded (metric: ${met}, label name: ${trunc(l.name)}, value: ${JSON.stringify(trunc(l.value))}, length: ${valueLen}, limit: ${cfg.labelValueLengthLimit})`;
    }
  }
  return '';
}

/** Go's `%.50s`: at most 50 runes. */
function trunc(s: string): string {
  const runes = [...s];
  return runes.length <= 50 ? s : runes.slice(0, 50).join('');
}

/** Prometheus's message for a pool with more targets than `target_limit`. */
export function targetLimitError(targets: number, limit: number): string {
  return `target_limit exceeded (number of targets: ${targets}, limit: ${limit})`;
}
