/**
 * Prometheus durations (`common/model.Duration`): `1y2w3d4h5m6s7ms`, each unit at most once and in that
 * order, or `0`. One parser for PromQL ranges, API parameters, config files, rule files, target labels,
 * template `parseDuration` and command-line flags. Formatting matches `Duration.String()`, so
 * `/status/config` and target labels read as Prometheus's do.
 */
import { InvalidArgumentError } from '../errors.ts';

const DURATION_RE = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;
const UNIT_MS = [365 * 86400e3, 7 * 86400e3, 86400e3, 3600e3, 60e3, 1e3, 1];
const UNIT_NAMES = ['y', 'w', 'd', 'h', 'm', 's', 'ms'];

/** The duration in ms, or null when `s` is not a duration (for callers with their own error messages). */
export function parseDurationMsOrNull(s: string): number | null {
  if (s === '0') return 0;
  const m = s === '' ? null : DURATION_RE.exec(s);
  if (!m) return null;
  let ms = 0;
  for (let i = 0; i < UNIT_MS.length; i++) if (m[i + 1] !== undefined) ms += Number(m[i + 1]) * UNIT_MS[i];
  return ms;
}

/** The duration in ms; throws `InvalidArgumentError` with Prometheus's `not a valid duration string: "…"`. */
export function parseDurationMs(s: string): number {
  const ms = parseDurationMsOrNull(s);
  if (ms === null) throw new InvalidArgumentError('INVALID_ARGUMENT', `not a valid duration string: ${JSON.stringify(s)}`);
  return ms;
}

/** `Duration.String()`: years and weeks only when they divide exactly ("90d", not "12w6d"), then d, h, m, s, ms. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  let out = '';
  let rest = ms;
  for (let i = 0; i < UNIT_MS.length; i++) {
    const f = UNIT_MS[i];
    if (i < 2 && rest % f !== 0) continue;
    const q = Math.floor(rest / f);
    if (q > 0) { out += `${q}${UNIT_NAMES[i]}`; rest -= q * f; }
  }
  return out;
}
