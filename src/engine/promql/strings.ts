/** Go string literal handling: `strconv.Unquote` for the three PromQL quote styles, and `%q` quoting for the printer. */

const SIMPLE: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/** Unquotes a "…", '…' or `…` literal as Go does; null when the escapes are invalid. */
export function unquoteString(lit: string): string | null {
  const q = lit[0];
  const body = lit.slice(1, -1);
  if (q === '`') return body.includes('`') ? null : body.replace(/\r/g, '');
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === q) return null;
    if (c !== '\\') { out += c; continue; }
    const e = body[++i];
    if (e === undefined) return null;
    if (e in SIMPLE) { out += SIMPLE[e]; continue; }
    if (e === q) { out += e; continue; }
    if (e === 'x' || e === 'u' || e === 'U') {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + n);
      if (hex.length !== n || !/^[0-9a-fA-F]+$/.test(hex)) return null;
      const cp = parseInt(hex, 16);
      if (e === 'x') out += String.fromCharCode(cp); // A byte; PromQL strings are UTF-8, good enough for ASCII.
      else { if (cp > 0x10ffff) return null; out += String.fromCodePoint(cp); }
      i += n;
      continue;
    }
    if (e >= '0' && e <= '7') {
      const oct = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(oct)) return null;
      const v = parseInt(oct, 8);
      if (v > 255) return null;
      out += String.fromCharCode(v);
      i += 2;
      continue;
    }
    return null;
  }
  return out;
}

/** Go's `%q` / `strconv.Quote` for printable text: escapes `"`, `\` and control characters. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\x07') out += '\\a';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\v') out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + '"';
}
