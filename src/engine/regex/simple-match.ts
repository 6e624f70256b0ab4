/**
 * Elasticsearch's `Regex.simpleMatch`: `*` stands for any run of characters (none too), every other character
 * for itself. Field, index, alias and task-action patterns are user input: the `^a.*b.*c$` RegExp they used to
 * become backtracks exponentially in the number of stars (`*a*a*a…*b` against a 40-character field name ran for
 * minutes on a shard worker, stalling every document call routed there).
 */

const STAR = 42;

/**
 * Whether `value` matches `pattern`. Greedy matching that, on a mismatch, lets the last star take one more
 * character: O(pattern.length × value.length) at worst.
 */
export function simpleMatch(pattern: string, value: string): boolean {
  let p = 0, v = 0, star = -1, starValue = 0;
  while (v < value.length) {
    if (p < pattern.length && pattern.charCodeAt(p) === STAR) { star = p++; starValue = v; }
    else if (p < pattern.length && pattern.charCodeAt(p) === value.charCodeAt(v)) { p++; v++; }
    else if (star >= 0) { p = star + 1; v = ++starValue; }
    else return false;
  }
  while (p < pattern.length && pattern.charCodeAt(p) === STAR) p++;
  return p === pattern.length;
}
