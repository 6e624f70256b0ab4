/**
 * Go (RE2) regular expressions as Prometheus reads them: label matchers, relabel rules, `label_replace` and
 * rule templates all compile through here, so each reads a regex the same way (POSIX classes `[[:alpha:]]`,
 * flag groups `(?i)` / `(?i:…)` anywhere, `(?P<name>…)`, `\Q…\E`, `\z`) and runs in linear time.
 */
import { compileRe2, type Re2Regex } from './re2.ts';

/**
 * Compiles a Go regex fully anchored, as Prometheus does (`^(?:re)$`), so `exec` returns a whole-value match.
 * Throws `InvalidArgumentError` ("error parsing regexp: …") when invalid.
 */
export function compileGoRegex(src: string): Re2Regex {
  return compileRe2(`^(?:${src})$`);
}

/** Compiles a Go regex unanchored, for functions that search inside a string (templates' `reReplaceAll`). */
export function compileGoRegexUnanchored(src: string): Re2Regex {
  return compileRe2(src);
}

/** No RE2 metacharacter: the pattern is a literal string. */
const LITERAL_RE = /^[^\\.+*?()|[\]{}^$]*$/;
/** `lit.*`, `.*lit`, `.*lit.*` with a literal `lit`. */
const AFFIX_RE = /^(\.\*)?([^\\.+*?()|[\]{}^$]+)(\.\*)?$/;

/**
 * A whole-value predicate for a label matcher's regex. Shapes Prometheus also short-cuts are answered
 * without running the regex: a literal, an alternation of literals (`a|b|c`), `.*`, `.+`, and a literal
 * prefix, suffix or infix (`api-.*`, `.*-prod`, `.*err.*`) on values without a newline (Go's `.` refuses
 * `\n`, so those go to the regex), also as alternatives of one another (`s1.*|s2.*|x`: a selector over a
 * high-cardinality label runs this once per value of the label, and re2js took as long as reading the
 * selected series). Everything else runs the compiled RE2 program, which is linear in the value but about
 * ten times slower than V8 on easy patterns (bench/regex/regex.bench.ts).
 * Throws `InvalidArgumentError` when the pattern is invalid.
 */
export function goRegexPredicate(src: string): (s: string) => boolean {
  const re = compileGoRegex(src); // validates every pattern, shortcut or not
  if (src === '.*') return (s) => !s.includes('\n');
  if (src === '.+') return (s) => s !== '' && !s.includes('\n');
  if (LITERAL_RE.test(src)) return (s) => s === src;
  // No alternative holds a metacharacter other than a leading or trailing `.*`, so splitting at every `|`
  // splits the top-level alternation.
  const alternatives = src.split('|');
  if (alternatives.length > 1 && alternatives.every((a) => LITERAL_RE.test(a))) {
    const set = new Set(alternatives);
    return (s) => set.has(s);
  }
  const tests = alternatives.map(affixTest);
  if (tests.every((t) => t !== null)) {
    if (tests.length === 1) return (s) => (s.includes('\n') ? re.matchesWhole(s) : tests[0]!(s));
    return (s) => {
      if (s.includes('\n')) return re.matchesWhole(s);
      for (let i = 0; i < tests.length; i++) if (tests[i]!(s)) return true;
      return false;
    };
  }
  return (s) => re.matchesWhole(s);
}

/**
 * The test of one alternative that is a literal or a literal with `.*` before and/or after it, exact on
 * values without a newline; null for any other shape.
 */
function affixTest(alt: string): ((s: string) => boolean) | null {
  if (LITERAL_RE.test(alt)) return (s) => s === alt;
  const affix = AFFIX_RE.exec(alt);
  if (!affix || (!affix[1] && !affix[3])) return null;
  const lit = affix[2];
  if (!affix[1]) return (s) => s.startsWith(lit);
  if (!affix[3]) return (s) => s.endsWith(lit);
  return (s) => s.includes(lit);
}
