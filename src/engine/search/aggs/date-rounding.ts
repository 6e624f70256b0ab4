/**
 * date_histogram rounding: calendar units (`minute`/`1m`, `hour`/`1h`, `day`/`1d`, `week`/`1w`, `month`/`1M`,
 * `quarter`/`1q`, `year`/`1y`) round in the requested time zone; other intervals (`90m`, `2d`, milliseconds)
 * are fixed lengths, also aligned in local time, as ES 6's TimeZoneRounding does.
 */
import { zoneOffsetAt } from '../../analysis/date-format.ts';
import { parsingError } from '../query-parser.ts';

const CAL: Record<string, string> = {
  minute: 'm', '1m': 'm', hour: 'h', '1h': 'h', day: 'd', '1d': 'd', week: 'w', '1w': 'w', month: 'M', '1M': 'M',
  quarter: 'q', '1q': 'q', year: 'y', '1y': 'y', second: 's', '1s': 's',
};
const FIXED: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function calendarFloor(local: number, unit: string): number {
  const d = new Date(local);
  switch (unit) {
    case 's': d.setUTCMilliseconds(0); break;
    case 'm': d.setUTCSeconds(0, 0); break;
    case 'h': d.setUTCMinutes(0, 0, 0); break;
    case 'd': d.setUTCHours(0, 0, 0, 0); break;
    case 'w': d.setUTCHours(0, 0, 0, 0); d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7)); break;
    case 'M': d.setUTCHours(0, 0, 0, 0); d.setUTCDate(1); break;
    case 'q': d.setUTCHours(0, 0, 0, 0); d.setUTCDate(1); d.setUTCMonth(Math.floor(d.getUTCMonth() / 3) * 3); break;
    case 'y': d.setUTCHours(0, 0, 0, 0); d.setUTCMonth(0, 1); break;
  }
  return d.getTime();
}

export function parseOffsetMs(v: unknown): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  const m = /^([+-])?(\d+)(ms|s|m|h|d)$/.exec(String(v));
  if (!m) throw parsingError(`failed to parse setting [date_histogram.offset] with value [${String(v)}] as a time value`);
  return (m[1] === '-' ? -1 : 1) * Number(m[2]) * FIXED[m[3]];
}

/** Returns key(v): the UTC millisecond start of v's bucket. */
export function dateRounding(interval: string, timeZone: string | undefined, offset: unknown): (v: number) => number {
  const off = parseOffsetMs(offset);
  const unit = CAL[interval];
  if (unit) {
    return (v) => {
      const tz = zoneOffsetAt(timeZone, v - off);
      const local = calendarFloor(v - off + tz, unit);
      return local - zoneOffsetAt(timeZone, local - tz) + off;
    };
  }
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(interval);
  if (!m) throw parsingError(`failed to parse setting [date_histogram.interval] with value [${interval}] as a time value: unit is missing or unrecognized`);
  const len = Number(m[1]) * FIXED[m[2] ?? 'ms'];
  return (v) => {
    const tz = zoneOffsetAt(timeZone, v);
    return Math.floor((v - off + tz) / len) * len - tz + off;
  };
}

/** Next bucket key after `key` (for filling empty buckets). */
export function nextKey(interval: string, timeZone: string | undefined, offset: unknown, key: number): number {
  const round = dateRounding(interval, timeZone, offset);
  const unit = CAL[interval];
  if (!unit) {
    const m = /^(\d+)(ms|s|m|h|d)?$/.exec(interval)!;
    return key + Number(m[1]) * FIXED[m[2] ?? 'ms'];
  }
  // Step past the bucket: add a generous amount then round down.
  const step: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, M: 32 * 86_400_000, q: 93 * 86_400_000, y: 367 * 86_400_000 };
  return round(key + step[unit]);
}
