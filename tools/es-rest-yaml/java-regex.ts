/**
 * Expected values written `/.../` in the YAML tests are Java regular expressions compiled with
 * Pattern.COMMENTS and searched with `find()`. This turns one into a JS RegExp: outside character classes,
 * unescaped white space is dropped and `#` starts a comment to the end of the line (which is how the `_cat`
 * tests put their header line in a comment), and Java's anchors `\A`, `\Z`, `\z` and `$` (end of input or
 * before a final line terminator) get their JS equivalents.
 */
export function isRegexLiteral(v: unknown): v is string {
  return typeof v === 'string' && v.length > 1 && v.trim().startsWith('/') && v.trim().endsWith('/');
}

export function javaCommentsRegex(literal: string): RegExp {
  return javaRegex(literal, true);
}

/**
 * A `/.../` literal as a JS RegExp; `comments` is Pattern.COMMENTS, which `match` uses and `catch` does not (ES's
 * DoSection compiles a catch pattern plainly and searches the error response with it).
 */
export function javaRegex(literal: string, comments: boolean): RegExp {
  const src = literal.trim().slice(1, -1);
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      const n = src[i + 1] ?? '';
      i++;
      if (!inClass && n === 'A') out += '^';
      else if (!inClass && n === 'Z') out += '(?=\\n?$)';
      else if (!inClass && n === 'z') out += '$';
      else if (n === ' ' || n === '#') out += n === ' ' ? ' ' : '#';
      else out += c + n;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') { inClass = true; out += c; continue; }
    if (comments && /\s/.test(c)) continue;
    if (comments && c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    out += c === '$' ? '(?=\\n?$)' : c;
  }
  return new RegExp(out);
}
