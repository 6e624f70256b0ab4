import { test } from 'node:test';
import assert from 'node:assert/strict';
import { byteSize, format1Decimals, humanize, timeValue } from './human.ts';

test('ByteSizeValue text: one decimal cut, not rounded; .0 dropped', () => {
  const f = (bytes: number, want: string): void => assert.equal(byteSize(bytes), want, String(bytes));
  f(0, '0b'); f(1000, '1000b'); f(1024, '1kb'); f(1536, '1.5kb'); f(2047, '1.9kb'); f(5 * 1024 ** 3, '5gb'); f(1024 ** 5 * 3, '3pb');
});

test('TimeValue text from millis and nanos', () => {
  const ms = (v: number, want: string): void => assert.equal(timeValue(v * 1e6, v), want, String(v));
  ms(0, '0s'); ms(1, '1ms'); ms(999, '999ms'); ms(1500, '1.5s'); ms(90_000, '1.5m'); ms(3_600_000, '1h'); ms(86_400_000 * 2.25, '2.2d'); ms(-1, '-1');
  assert.equal(timeValue(500, 500), '500nanos');
  assert.equal(timeValue(1500, 1500), '1.5micros');
  assert.equal(format1Decimals(12345678.9, 'b'), '1.2E7b');
});

test('humanize puts each readable twin before its raw field and leaves other keys alone', () => {
  const out = humanize({ store: { size_in_bytes: 2048 }, jvm: { uptime_in_millis: 61_000, start_time_in_millis: 0 }, n: [{ t_in_nanos: 0 }], x: 'a_in_bytes' });
  assert.deepEqual(JSON.stringify(out), JSON.stringify({
    store: { size: '2kb', size_in_bytes: 2048 }, jvm: { uptime: '1m', uptime_in_millis: 61_000, start_time: '1970-01-01T00:00:00.000Z', start_time_in_millis: 0 },
    n: [{ t: '0s', t_in_nanos: 0 }], x: 'a_in_bytes',
  }));
});
