/**
 * ES's ByteSizeValue.parseBytesSizeValue as the `bytes` ingest processor uses it: a number with a unit (`b`,
 * `k`/`kb`, `m`/`mb`, `g`/`gb`, `t`/`tb`, `p`/`pb`, case-insensitive) to bytes; `-1` and `0` stand alone. A
 * fraction is accepted and truncated to whole bytes (6.x accepts it with a deprecation warning).
 */
import { docError } from '../doc-errors.ts';

const UNITS: Record<string, number> = { b: 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3,
  t: 1024 ** 4, tb: 1024 ** 4, p: 1024 ** 5, pb: 1024 ** 5 };

/** Bytes of `text`; `setting` names the value in the error (the processor passes the field). */
export function parseByteSize(text: string, setting: string): number {
  const s = text.trim().toLowerCase();
  if (s === '-1' || s === '0') return Number(s);
  const m = /^(-?\d+(?:\.\d+)?)\s*([a-z]+)$/.exec(s);
  if (!m || UNITS[m[2]] === undefined) {
    throw docError('DOC_PARSE', [`failed to parse setting [${setting}] with value [${text}] as a size in bytes: unit is missing or unrecognized`]);
  }
  const bytes = Math.trunc(Number(m[1]) * UNITS[m[2]]);
  if (bytes < -1) throw docError('DOC_PARSE', [`failed to parse setting [${setting}] with value [${text}] as a size in bytes`]);
  return bytes;
}
