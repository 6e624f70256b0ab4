/** Linear-time regular expressions for everything a user supplies: Go/RE2 syntax and Lucene syntax. */
export { compileRe2, quoteRe2, Re2Regex, type RegexMatch, type Re2Flags } from './re2.ts';
export { compileGoRegex, compileGoRegexUnanchored, goRegexPredicate } from './go-regex.ts';
export { compileLuceneRegex } from './lucene-regex.ts';
export { expandGoTemplate } from './expand.ts';
export { compileLuceneWildcard } from './lucene-wildcard.ts';
export { simpleMatch } from './simple-match.ts';
