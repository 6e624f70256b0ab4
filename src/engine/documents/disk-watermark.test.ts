import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseWatermark, watermarkExceeded } from './disk-watermark.ts';

const GB = 1024 ** 3;

test('watermarks parse as a used share or as free bytes, and are exceeded below the free space they leave', () => {
  const cases: [value: string, total: number, available: number, exceeded: boolean][] = [
    ['95%', 100 * GB, 6 * GB, false],
    ['95%', 100 * GB, 5 * GB, false], // exactly 5% free: ES compares strictly
    ['95%', 100 * GB, 4.9 * GB, true],
    ['0.85', 100 * GB, 14 * GB, true],
    ['0.85', 100 * GB, 16 * GB, false],
    ['1', 100 * GB, 0, false],
    ['10gb', 100 * GB, 9 * GB, true],
    ['10GB', 100 * GB, 11 * GB, false],
    ['500mb', 100 * GB, 400 * 1024 ** 2, true],
    ['1000tb', 100 * GB, 50 * GB, true],
    ['0b', 100 * GB, 0, false],
  ];
  for (const [v, total, avail, want] of cases) {
    assert.equal(watermarkExceeded(parseWatermark(v, 'w'), total, avail), want, `${v} with ${avail} of ${total} free`);
  }
  for (const bad of ['abc', '95 %', '120%', '-5%', '10 zb', '']) {
    assert.throws(() => parseWatermark(bad, 'cluster.routing.allocation.disk.watermark.low'),
      /failed to parse setting \[cluster\.routing\.allocation\.disk\.watermark\.low\] with value \[.*\] as a size in bytes/, bad);
  }
});
