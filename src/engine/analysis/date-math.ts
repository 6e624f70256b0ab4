/**
 * Elasticsearch date math after its anchor: `+1d`, `-2h`, `/M` (rounding) in sequence, units y M w d h H m s,
 * in a time zone given as its offset. Shared by range queries and date-math index names.
 */
const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, H: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

function addUnit(ms: number, n: number, unit: string, tzOff: number): number {
  if (unit === 'M' || unit === 'y') {
    const d = new Date(ms + tzOff);
    if (unit === 'M') d.setUTCMonth(d.getUTCMonth() + n); else d.setUTCFullYear(d.getUTCFullYear() + n);
    return d.getTime() - tzOff;
  }
  return ms + n * UNITS[unit];
}

function roundUnit(ms: number, unit: string, up: boolean, tzOff: number): number {
  const d = new Date(ms + tzOff);
  switch (unit) {
    case 'y': d.setUTCMonth(0, 1); d.setUTCHours(0, 0, 0, 0); break;
    case 'M': d.setUTCDate(1); d.setUTCHours(0, 0, 0, 0); break;
    case 'w': { const day = (d.getUTCDay() + 6) % 7; d.setUTCDate(d.getUTCDate() - day); d.setUTCHours(0, 0, 0, 0); break; }
    case 'd': d.setUTCHours(0, 0, 0, 0); break;
    case 'h': case 'H': d.setUTCMinutes(0, 0, 0); break;
    case 'm': d.setUTCSeconds(0, 0); break;
    case 's': d.setUTCMilliseconds(0); break;
  }
  let start = d.getTime() - tzOff;
  if (up) start = addUnit(start, 1, unit, tzOff) - 1;
  return start;
}

/** `base` with the operations of `expr` applied (`roundUp` rounds to the end of the unit); null when `expr` is not date math. */
export function applyDateMath(base: number, expr: string, roundUp: boolean, tzOff: number): number | null {
  const re = /([+-])(\d+)?([yMwdhHms])|\/([yMwdhHms])/g;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(expr))) {
    if (m.index !== consumed) break;
    consumed = re.lastIndex;
    if (m[4]) base = roundUnit(base, m[4], roundUp, tzOff);
    else base = addUnit(base, (m[1] === '-' ? -1 : 1) * Number(m[2] ?? 1), m[3], tzOff);
  }
  return consumed === expr.length ? base : null;
}
