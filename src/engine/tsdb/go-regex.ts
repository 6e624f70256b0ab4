/**
 * Go RE2 syntax → JS RegExp, for the parts Prometheus users rely on in label matchers, `label_replace` and
 * rule templates: `(?P<name>…)`, flag groups `(?i)`/`(?i:…)` anywhere (Node 20 has no inline modifiers, so
 * case-insensitive spans are expanded to `[aA]` classes), `(?s)`, and POSIX bracket classes. It lives with
 * the storage interfaces so that every matcher, whoever builds it, reads a regex the way Prometheus does.
 */

/** RE2's POSIX classes inside brackets (`[[:alpha:]]`), which JS does not know. */
const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\x00-\\x7F', blank: '\\t ', cntrl: '\\x00-\\x1F\\x7F', digit: '0-9',
  graph: '!-~', lower: 'a-z', print: ' -~', punct: '!-\\/:-@\\[-`{-~', space: '\\t\\n\\v\\f\\r ', upper: 'A-Z',
  word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};

function caseFold(ch: string): string {
  const lo = ch.toLowerCase(), up = ch.toUpperCase();
  return lo !== up ? `[${lo}${up}]` : ch;
}

/** Translates the body of a Go regex; returns [jsSource, dotAll]. */
export function translateGoRegex(src: string): { source: string; dotAll: boolean } {
  let out = '';
  let dotAll = false;
  const stack: boolean[] = []; // case-insensitivity to restore at each ')'
  let ci = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      const e = src[i + 1] ?? '';
      i++;
      if (e === 'z') out += '$';
      else if (e === 'A') out += '^';
      else if (e === 'Q') {
        // \Q…\E quotes literally.
        const end = src.indexOf('\\E', i + 1);
        const lit = src.slice(i + 1, end < 0 ? src.length : end);
        out += [...lit].map((ch) => (ci ? caseFold(ch) : ch.replace(/[.*+?^${}()|[\]\\\/]/, '\\$&'))).join('');
        i = end < 0 ? src.length : end + 1;
      } else out += c + e;
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      if (src[j] === '^') j++;
      if (src[j] === ']') j++;
      while (j < src.length && src[j] !== ']') { if (src[j] === '\\') j++; j++; }
      const body = src.slice(i, j + 1).replace(/\[:(\^?)(\w+):\]/g, (m, neg: string, name: string) => (neg ? m : POSIX[name] ?? m));
      out += ci ? body.replace(/([a-zA-Z])-([a-zA-Z])|([a-zA-Z])/g, (m, a, b, one) => (one ? one.toLowerCase() + one.toUpperCase() : `${a.toLowerCase()}-${b.toLowerCase()}${a.toUpperCase()}-${b.toUpperCase()}`)) : body;
      i = j;
      continue;
    }
    if (c === '(') {
      const flags = /^\(\?([imsU-]+)(\)|:)/.exec(src.slice(i));
      if (flags) {
        const on = !flags[1].includes('-') || flags[1].indexOf('i') < flags[1].indexOf('-');
        const setsI = flags[1].includes('i');
        if (flags[1].includes('s')) dotAll = true;
        i += flags[0].length - 1;
        if (flags[2] === ')') { if (setsI) ci = on; continue; }
        stack.push(ci);
        if (setsI) ci = on;
        out += '(?:';
        continue;
      }
      if (src.startsWith('(?P<', i)) { out += '(?<'; i += 3; stack.push(ci); continue; }
      stack.push(ci);
      out += c;
      continue;
    }
    if (c === ')') { ci = stack.pop() ?? ci; out += c; continue; }
    out += ci ? caseFold(c) : c;
  }
  return { source: out, dotAll };
}

/** Compiles a Go regex fully anchored, as Prometheus does. Throws SyntaxError when invalid. */
export function compileGoRegex(src: string): RegExp {
  const { source, dotAll } = translateGoRegex(src);
  return new RegExp(`^(?:${source})$`, dotAll ? 's' : '');
}
