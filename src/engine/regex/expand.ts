/**
 * Go's `Regexp.Expand`: the replacement templates of relabelling, `label_replace` and templates'
 * `reReplaceAll`. `$1`, `${1}`, `$name`, `${name}`, `$$` for a dollar; a bare name is the longest run of word
 * characters, so `$1x` names group `1x` (empty) — write `${1}x`. A group that does not exist expands to "".
 */
import type { RegexMatch } from './re2.ts';

const WORD_RE = /\w/;
const NAME_RE = /^\w+$/;
const NUMBER_RE = /^\d+$/;

export function expandGoTemplate(template: string, m: RegexMatch): string {
  if (!template.includes('$')) return template;
  let out = '';
  let i = 0;
  while (i < template.length) {
    const c = template[i];
    if (c !== '$' || i + 1 >= template.length) { out += c; i++; continue; }
    if (template[i + 1] === '$') { out += '$'; i += 2; continue; }
    let name: string;
    let next: number;
    if (template[i + 1] === '{') {
      const close = template.indexOf('}', i + 2);
      name = close < 0 ? '' : template.slice(i + 2, close);
      if (!NAME_RE.test(name)) { out += c; i++; continue; }
      next = close + 1;
    } else {
      next = i + 1;
      while (next < template.length && WORD_RE.test(template[next])) next++;
      name = template.slice(i + 1, next);
      if (name === '') { out += c; i++; continue; }
    }
    out += groupValue(m, name);
    i = next;
  }
  return out;
}

function groupValue(m: RegexMatch, name: string): string {
  if (NUMBER_RE.test(name)) {
    const n = Number(name);
    return n < m.length ? (m[n] ?? '') : '';
  }
  return m.groups?.[name] ?? '';
}
