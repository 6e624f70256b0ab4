/**
 * The adapter for `re2js`, the only module that imports it: a pure-JS port of RE2 (Go's `regexp`), whose
 * matching time is linear in the input whatever the pattern. Every regex a user supplies — PromQL matchers,
 * relabelling, `/api/v1/series`, ES `regexp` / `terms` include-exclude — is compiled here, never by V8's
 * backtracking `RegExp` (`(a|aa)*b` against 40 `a`s takes seconds there, milliseconds here).
 */
import { RE2JS } from 're2js';
import { InvalidArgumentError } from '../errors.ts';

/** One match: `[0]` the whole match, `[i]` group i (undefined when it did not take part), `groups` by name. */
export interface RegexMatch {
  readonly [group: number]: string | undefined;
  readonly length: number;
  readonly index: number;
  readonly groups?: Readonly<Record<string, string | undefined>>;
}

/** A compiled RE2 regex. Matching methods never backtrack. Instances are not re-entrant across threads. */
export class Re2Regex {
  constructor(private readonly re: RE2JS) {}

  /** True when the whole of `s` matches. */
  matchesWhole(s: string): boolean { return this.re.testExact(s); }

  /** True when some part of `s` matches. */
  matchesPart(s: string): boolean { return this.re.test(s); }

  /** The leftmost match in `s` with its groups, or null. */
  exec(s: string): RegexMatch | null { return this.re.exec(s) as RegexMatch | null; }

  /** Every non-overlapping match, left to right (an empty match advances by one character, as in Go). */
  execAll(s: string): RegexMatch[] { return [...this.re.matchAll(s)] as unknown as RegexMatch[]; }
}

export interface Re2Flags {
  /** `.` also matches `\n` (Go's `(?s)`). */
  readonly dotAll?: boolean;
  readonly caseInsensitive?: boolean;
}

/**
 * Compiles `source` in RE2 syntax. Throws `InvalidArgumentError` carrying RE2's own message
 * ("error parsing regexp: missing closing ): `(a`") when the syntax is invalid.
 */
export function compileRe2(source: string, flags: Re2Flags = {}): Re2Regex {
  const f = (flags.dotAll ? RE2JS.DOTALL : 0) | (flags.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  try {
    return new Re2Regex(RE2JS.compile(source, f));
  } catch (e) {
    throw new InvalidArgumentError('INVALID_ARGUMENT', (e as Error).message, { regex: source });
  }
}

/** `s` with every RE2 metacharacter escaped, so that it matches itself literally. */
export function quoteRe2(s: string): string { return RE2JS.quote(s); }
