/** The one date parser: what the mapper validates and detects is what indexing, ranges and aggregations read. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_DYNAMIC_DATE_FORMATS, detectDate, formatDate, parseDate, parseDateOrNull } from './date-format.ts';
import { InvalidArgumentError } from '../errors.ts';

test('dates parse to epoch ms with the default and pattern formats', () => {
  const f = (v: unknown, format: string | undefined, want: number | null): void => assert.equal(parseDateOrNull(v, format), want, `${String(v)} / ${format}`);
  f('2015-01-01', undefined, Date.UTC(2015, 0, 1));
  f('2015-02-01T10:00:00Z', undefined, Date.UTC(2015, 1, 1, 10));
  f('2015-02-01T10:00:00.5+01:00', undefined, Date.UTC(2015, 1, 1, 9, 0, 0, 500));
  f('1420070400000', undefined, 1420070400000);
  f(1420070400000.7, undefined, 1420070400000);
  f(1420070400, 'epoch_second', 1420070400000);
  f('2015/01/02 03:04:05', 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd', Date.UTC(2015, 0, 2, 3, 4, 5));
  f('2015/01/02', 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd', Date.UTC(2015, 0, 2));
  f('2016-02-29', 'strict_date', Date.UTC(2016, 1, 29));
});

test('out-of-range fields are refused, not rolled over', () => {
  for (const v of ['2015-02-30', '2015-02-29', '2015-13-01', '2015-01-32', '2015-01-01T24:00:00Z', '2015-01-01T10:60:00Z', 'not a date']) {
    assert.equal(parseDateOrNull(v), null, v);
    assert.throws(() => parseDate(v), (e: Error) => e instanceof InvalidArgumentError && e.message.startsWith(`failed to parse date field [${v}]`), v);
  }
  assert.equal(parseDateOrNull('2015/02/30', 'yyyy/MM/dd'), null);
  assert.equal(parseDateOrNull(Number.NaN), null);
});

test('date detection maps ISO dates to the default format and slash dates to their pattern', () => {
  assert.equal(detectDate('2015-01-01T10:00:00Z', DEFAULT_DYNAMIC_DATE_FORMATS), 'strict_date_optional_time||epoch_millis');
  assert.equal(detectDate('2015/01/01 10:00:00', DEFAULT_DYNAMIC_DATE_FORMATS), 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd');
  assert.equal(detectDate('2015/01/01', DEFAULT_DYNAMIC_DATE_FORMATS), 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd');
  for (const v of ['12345678', '2015-02-30', 'hello world', '1.5', '2015']) assert.equal(detectDate(v, DEFAULT_DYNAMIC_DATE_FORMATS), null, v);
});

test('printing uses the first format', () => {
  assert.equal(formatDate(Date.UTC(2015, 0, 2, 3, 4, 5), 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd'), '2015/01/02 03:04:05');
  assert.equal(formatDate(Date.UTC(2015, 0, 2)), '2015-01-02T00:00:00.000Z');
});

test('the toISOString shape reads as the general ISO reader reads it, valid or not', () => {
  // The same instants written with a space separator and a comma fraction take the regex path.
  const pad = (n: number, w: number): string => String(n).padStart(w, '0');
  let seed = 12345;
  const rnd = (n: number): number => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed % n; };
  for (let i = 0; i < 5000; i++) {
    const y = rnd(3) === 0 ? rnd(10000) : 1970 + rnd(100), mo = rnd(14), d = rnd(33), h = rnd(25), mi = rnd(61), s = rnd(61), ms = rnd(1000);
    const date = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}`, time = `${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}`;
    for (const [canonical, general] of [[`${date}T${time}Z`, `${date} ${time}Z`], [`${date}T${time}.${pad(ms, 3)}Z`, `${date} ${time},${pad(ms, 3)}Z`]]) {
      assert.equal(parseDateOrNull(canonical), parseDateOrNull(general), canonical);
    }
  }
  assert.equal(parseDateOrNull('2026-10-01T12:34:56.789Z'), Date.UTC(2026, 9, 1, 12, 34, 56, 789));
  assert.equal(parseDateOrNull('2026-02-29T00:00:00Z'), null, 'not a leap year');
  assert.equal(parseDateOrNull('2026-1x-01T00:00:00Z'), null);
  assert.equal(parseDateOrNull('0099-01-01T00:00:00Z'), new Date('0099-01-01T00:00:00Z').getTime(), 'year 99, not 1999');
});
