/**
 * Byte sizes as Prometheus reads them (`alecthomas/units.Base2Bytes`): `512MB`, `1GiB`, `1.5GB`, `1GiB512MiB`.
 * Both spellings of each unit are powers of 1024 — Prometheus takes `MB` to mean MiB, so `10MB` prints back
 * as `10MiB`. One parser for `--storage.tsdb.retention.size`, the other size flags and `body_size_limit`.
 */

const UNITS = ['B', 'K', 'M', 'G', 'T', 'P', 'E'];
const PART_RE = /(\d+(?:\.\d+)?)([KMGTPE]i?B|B)/y;

/** Bytes, or null when `s` is not a size. A bare number (`0`, `1024`) is taken as bytes. */
export function parseBase2Bytes(s: string): number | null {
  if (/^\d+$/.test(s)) return Number(s);
  if (s === '') return null;
  let total = 0;
  PART_RE.lastIndex = 0;
  while (PART_RE.lastIndex < s.length) {
    const start = PART_RE.lastIndex;
    const m = PART_RE.exec(s);
    if (m === null || m.index !== start) return null;
    total += Number(m[1]) * 1024 ** UNITS.indexOf(m[2][0]);
  }
  return Math.floor(total);
}

/** `Base2Bytes.String()`: the largest units first (`10MiB`, `1GiB512MiB`), `0B` for zero. */
export function formatBase2Bytes(n: number): string {
  if (n === 0) return '0B';
  let out = '';
  let rest = n;
  for (let i = UNITS.length - 1; i >= 0; i--) {
    const f = 1024 ** i;
    const q = Math.floor(rest / f);
    if (q > 0) { out += `${q}${i === 0 ? 'B' : UNITS[i] + 'iB'}`; rest -= q * f; }
  }
  return out;
}
