/**
 * Date math index names, as Elasticsearch resolves them: `<static{date_math_expr{date_format|time_zone}}>`,
 * e.g. `<logs-{now/d}>` → `logs-2026.11.25`, `<logs-{now/M{yyyy.MM}}>` → `logs-2026.11`,
 * `<logs-{now/d{yyyy.MM.dd|+12:00}}>`. The anchor is `now` or a date followed by `||`; `\{` and `\}` are literal
 * braces. The default format is `yyyy.MM.dd` and the default zone UTC. Names without the angle brackets are
 * returned as they are.
 */
import { formatDate, parseDateOrNull, zoneOffsetAt } from '../analysis/date-format.ts';
import { applyDateMath } from '../analysis/date-math.ts';
import { docError } from './doc-errors.ts';

const DEFAULT_FORMAT = 'yyyy.MM.dd';

export function resolveDateMathName(name: string, nowMs: number): string {
  if (!(name.startsWith('<') && name.endsWith('>'))) return name;
  const inner = name.slice(1, -1);
  const bad = (why: string): never => { throw docError('DOC_INVALID_INDEX_NAME', [name, why], { index_uuid: '_na_', index: name }); };
  let out = '';
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '\\') { if (i + 1 < inner.length) out += inner[++i]; continue; }
    if (c === '}') bad('invalid character in placeholder at position [' + i + ']');
    if (c !== '{') { out += c; continue; }
    // The expression runs to the matching close brace (it may hold one `{format|zone}` of its own).
    let depth = 1, j = i + 1;
    for (; j < inner.length && depth > 0; j++) {
      if (inner[j] === '{') depth++;
      else if (inner[j] === '}') depth--;
    }
    if (depth !== 0) bad('missing closing brace');
    out += evaluate(inner.slice(i + 1, j - 1), nowMs, bad);
    i = j - 1;
  }
  return out;
}

function evaluate(expr: string, nowMs: number, bad: (why: string) => never): string {
  let format = DEFAULT_FORMAT, zone: string | undefined;
  const open = expr.indexOf('{');
  let math = expr;
  if (open >= 0) {
    if (!expr.endsWith('}')) bad('invalid dynamic name expression');
    const spec = expr.slice(open + 1, -1);
    math = expr.slice(0, open);
    const bar = spec.indexOf('|');
    format = (bar < 0 ? spec : spec.slice(0, bar)) || DEFAULT_FORMAT;
    zone = bar < 0 ? undefined : spec.slice(bar + 1);
  }
  let base: number, rest: string;
  if (math.startsWith('now')) { base = nowMs; rest = math.slice(3); } else {
    const k = math.indexOf('||');
    const anchor = parseDateOrNull(k < 0 ? math : math.slice(0, k));
    if (anchor === null) bad(`invalid date math expression [${math}]`);
    base = anchor!;
    rest = k < 0 ? '' : math.slice(k + 2);
  }
  const off = zone ? zoneOffsetAt(zone, base) : 0;
  const at = applyDateMath(base, rest, false, off);
  if (at === null) bad(`invalid date math expression [${math}]`);
  return formatDate(at!, format, off);
}
