/**
 * PromQL's regex helpers: Go regex translation (shared with the storage matchers, see `tsdb/go-regex.ts`) and
 * `Regexp.Expand` template semantics for label_replace.
 */
import { newMatcher, compileGoRegex, translateGoRegex } from '../tsdb/api.ts';

export { compileGoRegex, translateGoRegex };

/** Kept for callers that build matchers through PromQL; every matcher now reads Go regex syntax. */
export const promMatcher = newMatcher;

/** Go's `Regexp.Expand`: `$1`, `${1}`, `$name`, `${name}`, `$$`; the longest name wins (`$1x` is `${1x}`). */
export function expandTemplate(tpl: string, m: RegExpExecArray): string {
  let out = '';
  for (let i = 0; i < tpl.length; i++) {
    const c = tpl[i];
    if (c !== '$') { out += c; continue; }
    if (tpl[i + 1] === '$') { out += '$'; i++; continue; }
    let name = '', end = i;
    if (tpl[i + 1] === '{') {
      const close = tpl.indexOf('}', i + 2);
      const n = close < 0 ? '' : tpl.slice(i + 2, close);
      if (close < 0 || !/^\w+$/.test(n)) { out += '$'; continue; }
      name = n; end = close;
    } else {
      const mm = /^\w+/.exec(tpl.slice(i + 1));
      if (!mm) { out += '$'; continue; }
      name = mm[0]; end = i + name.length;
    }
    i = end;
    if (/^\d+$/.test(name)) { const idx = Number(name); out += idx < m.length ? (m[idx] ?? '') : ''; }
    else out += m.groups?.[name] ?? '';
  }
  return out;
}
