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
 * `\n`, so those go to the regex). Everything else runs the compiled RE2 program, which is linear in the
 * value but about ten times slower than V8 on easy patterns (bench/regex/regex.bench.ts).
 * Throws `InvalidArgumentError` when the pattern is invalid.
 */
export function goRegexPredicate(src: string): (s: string) => boolean {
  const re = compileGoRegex(src); // validates every pattern, shortcut or not
  if (src === '.*') return (s) => !s.includes('\n');
  if (src === '.+') return (s) => s !== '' && !s.includes('\n');
  if (LITERAL_RE.test(src)) return (s) => s === src;
  const alternatives = src.split('|');
  if (alternatives.length > 1 && alternatives.every((a) => LITERAL_RE.test(a))) {
    const set = new Set(alternatives);
    return (s) => set.has(s);
  }
  const affix = AFFIX_RE.exec(src);
  if (affix && (affix[1] || affix[3])) {
    const lit = affix[2];
    const test = !affix[1] ? (s: string) => s.startsWith(lit) : !affix[3] ? (s: string) => s.endsWith(lit) : (s: string) => s.includes(lit);
    return (s) => (s.includes('\n') ? re.matchesWhole(s) : test(s));
  }
  return (s) => re.matchesWhole(s);
}
