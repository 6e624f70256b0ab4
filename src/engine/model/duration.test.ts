/** The one Prometheus duration parser: what PromQL, the API, config and rule files, templates and flags accept. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, parseDurationMs, parseDurationMsOrNull } from './duration.ts';
import { InvalidArgumentError } from '../errors.ts';

test('durations parse and print as Prometheus does', () => {
  const f = (s: string, ms: number, back: string): void => {
    assert.equal(parseDurationMs(s), ms, s);
    assert.equal(parseDurationMsOrNull(s), ms, s);
    assert.equal(formatDuration(ms), back, s);
  };
  f('1h30m', 5_400_000, '1h30m'); f('90m', 5_400_000, '1h30m'); f('0', 0, '0s'); f('0s', 0, '0s');
  f('2w', 14 * 86_400_000, '2w'); f('15d', 15 * 86_400_000, '15d'); f('500ms', 500, '500ms'); f('1m500ms', 60_500, '1m500ms');
  f('1y', 365 * 86_400_000, '1y'); f('90d', 90 * 86_400_000, '90d'); f('1y2w3d4h5m6s7ms', 365 * 86_400_000 + 17 * 86_400_000 + 4 * 3_600_000 + 306_007, '382d4h5m6s7ms'); // y and w only when exact
});

test('units out of order, repeated, fractional, signed or unknown are refused by both forms', () => {
  for (const bad of ['', '1m1h', '1h1h', '1.5h', '-1m', '1', '5x', '1us', ' 1m', 'ms']) {
    assert.equal(parseDurationMsOrNull(bad), null, bad);
    assert.throws(() => parseDurationMs(bad), (e: Error) => e instanceof InvalidArgumentError && e.message === `not a valid duration string: ${JSON.stringify(bad)}`, bad);
  }
});
