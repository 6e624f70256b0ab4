/**
 * Elasticsearch's disk watermarks (`cluster.routing.allocation.disk.watermark.{low,high,flood_stage}`): each is
 * either a share of the disk in use (`95%`, or the ratio `0.95`) or an amount of free space (`500mb`, `10gb`,
 * base 1024 as ES's ByteSizeValue). A watermark is exceeded when the free space falls below it — ES's
 * DiskThresholdMonitor compares free bytes and the free percentage, strictly.
 */
import { illegalArgument } from './doc-errors.ts';

/** `usedPercent` 0–100 (kept in percent: ES compares free percentages, and 100 − 95 is exactly 5 only there). */
export type Watermark = { usedPercent: number; freeBytes?: undefined } | { freeBytes: number; usedPercent?: undefined };

const BYTE_UNITS: Record<string, number> = { b: 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, t: 1024 ** 4, tb: 1024 ** 4, p: 1024 ** 5, pb: 1024 ** 5 };

export function parseWatermark(v: string, setting: string): Watermark {
  const s = v.trim().toLowerCase();
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(s);
  if (pct) {
    const p = Number(pct[1]);
    if (p <= 100) return { usedPercent: p };
  }
  if (/^\d*\.\d+$|^[01]$/.test(s) && Number(s) <= 1) return { usedPercent: Number(s) * 100 };
  const bytes = /^(\d+(?:\.\d+)?)(b|kb?|mb?|gb?|tb?|pb?)$/.exec(s);
  if (bytes) return { freeBytes: Math.floor(Number(bytes[1]) * BYTE_UNITS[bytes[2]]) };
  throw illegalArgument(`failed to parse setting [${setting}] with value [${v}] as a size in bytes: unit is missing or unrecognized`);
}

export function watermarkExceeded(w: Watermark, totalBytes: number, availableBytes: number): boolean {
  if (w.freeBytes !== undefined) return availableBytes < w.freeBytes;
  return totalBytes > 0 && (100 * availableBytes) / totalBytes < 100 - w.usedPercent;
}
