/**
 * Lucene's wildcard syntax (ES `wildcard` query, `query_string` terms with `*`/`?`, highlight field
 * patterns): `*` any string, `?` any one character, `\` quotes the next character. Compiled to RE2, so
 * `*a*a*a*…b` stays linear in the term where a backtracking RegExp is polynomial.
 */
import { compileRe2 } from './re2.ts';

export function compileLuceneWildcard(pattern: string): (term: string) => boolean {
  let re = '';
  const chars = [...pattern]; // code points: `?` is one character, also outside the BMP
  for (let i = 0; i < chars.length; i++) {
    let c = chars[i];
    if (c === '\\' && i + 1 < chars.length) c = chars[++i];
    else if (c === '*') { re += '.*'; continue; } else if (c === '?') { re += '.'; continue; }
    re += `\\x{${c.codePointAt(0)!.toString(16)}}`;
  }
  const compiled = compileRe2(re, { dotAll: true });
  return (term) => compiled.matchesWhole(term);
}
