/**
 * Prometheus durations (`common/model.Duration`): `1y2w3d4h5m6s7ms` with units in that order, or `0`.
 * Formatting matches `Duration.String()`, so `/status/config` and target labels read as Prometheus's do.
 */
import { InvalidArgumentError } from '../errors.ts';

const DURATION_RE = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;
const UNIT_MS = [365 * 86400e3, 7 * 86400e3, 86400e3, 3600e3, 60e3, 1e3, 1];

/** Parses a duration into ms; throws InvalidArgumentError `not a valid duration string: "…"`. */
export function parseDuration(s: string): number {
  if (s === '0') return 0;
  const m = s === '' ? null : DURATION_RE.exec(s);
  if (!m) throw new InvalidArgumentError('INVALID_ARGUMENT', `not a valid duration string: ${JSON.stringify(s)}`);
  let ms = 0;
  for (let i = 0; i < UNIT_MS.length; i++) if (m[i + 1] !== undefined) ms += Number(m[i + 1]) * UNIT_MS[i];
  return ms;
}

/** `Duration.String()`: years and weeks only when exact, then d, h, m, s, ms. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  let r = '';
  const units: [string, number, boolean][] = [
    ['y', UNIT_MS[0], true], ['w', UNIT_MS[1], true], ['d', UNIT_MS[2], false], ['h', UNIT_MS[3], false],
    ['m', UNIT_MS[4], false], ['s', UNIT_MS[5], false], ['ms', 1, false],
  ];
  for (const [unit, mult, exact] of units) {
    if (exact && ms % mult !== 0) continue;
    const v = Math.floor(ms / mult);
    if (v > 0) { r += `${v}${unit}`; ms -= v * mult; }
  }
  return r;
}
