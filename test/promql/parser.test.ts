/** Parser: the accepted grammar (checked through the printer) and Prometheus's error messages and positions. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseExpr } from '../../src/engine/promql/parser.ts';
import { formatExpr } from '../../src/engine/promql/printer.ts';
import { typeOf } from '../../src/engine/promql/ast.ts';

const PRINTS: [string, string][] = [
  ['1', '1'], ['0x1f', '31'], ['1e3', '1000'], ['.5', '0.5'], ['Inf', '+Inf'], ['-inf', '-Inf'], ['NaN', 'NaN'],
  ['1e-7', '1e-07'], ['"a\\nb"', '"a\\nb"'], ["'it\\'s'", '"it\'s"'], ['`raw\\n`', '"raw\\\\n"'],
  ['foo', 'foo'], ['foo{}', 'foo'], ['{__name__="foo"}', '{__name__="foo"}'], ['foo{a="b", c!="d",}', 'foo{a="b",c!="d"}'],
  ['foo{a=~"x.*", b!~"y"}', 'foo{a=~"x.*",b!~"y"}'], ['foo:bar:baz', 'foo:bar:baz'],
  ['foo[1h30m]', 'foo[1h30m]'], ['foo[90m]', 'foo[1h30m]'], ['foo[5m] offset 1w', 'foo[5m] offset 1w'],
  ['foo offset -5m', 'foo offset -5m'], ['foo @ 100', 'foo @ 100.000'], ['foo @ start()', 'foo @ start()'],
  ['foo @ end() offset 1m', 'foo @ end() offset 1m'], ['foo offset 1m @ 1.5', 'foo @ 1.500 offset 1m'],
  ['rate(foo[5m])[30m:1m]', 'rate(foo[5m])[30m:1m]'], ['foo[5m:]', 'foo[5m:]'], ['(foo)[5m:] offset 1m', '(foo)[5m:] offset 1m'],
  ['-foo', '-foo'], ['- 1', '-1'], ['-2^2', '-2 ^ 2'], ['2 ^ 3 ^ 2', '2 ^ 3 ^ 2'], ['a + b * c', 'a + b * c'],
  ['a > bool 1', 'a > bool 1'], ['a + on(x, y) group_left(z) b', 'a + on (x, y) group_left (z) b'],
  ['a / ignoring(x) group_right b', 'a / ignoring (x) group_right () b'], ['a and on() b', 'a and on () b'],
  ['a or b unless c', 'a or b unless c'], ['a atan2 b', 'a atan2 b'],
  ['sum(foo) by (a, b)', 'sum by (a, b) (foo)'], ['sum without (a) (foo)', 'sum without (a) (foo)'],
  ['topk(3, foo)', 'topk(3, foo)'], ['count_values("v", foo)', 'count_values("v", foo)'],
  ['quantile by (x) (0.9, foo)', 'quantile by (x) (0.9, foo)'], ['sum by () (foo)', 'sum(foo)'],
  ['label_join(foo, "d", ",", "a", "b")', 'label_join(foo, "d", ",", "a", "b")'], ['time()', 'time()'],
  ['round(foo)', 'round(foo)'], ['foo # comment\n + bar', 'foo + bar'],
];

test('expressions parse and print as Prometheus prints them', () => {
  for (const [input, want] of PRINTS) assert.equal(formatExpr(parseExpr(input)), want, input);
});

test('operator precedence and associativity', () => {
  const e = parseExpr('1 + 2 * 3 ^ 2 ^ 2 - 4');
  assert.equal(e.kind, 'binary');
  assert.equal(e.kind === 'binary' && e.op, '-');
  const pow = parseExpr('2 ^ 3 ^ 2');
  assert.ok(pow.kind === 'binary' && pow.lhs.kind === 'number' && pow.rhs.kind === 'binary');
  const unary = parseExpr('-a ^ 2');
  assert.ok(unary.kind === 'unary' && unary.expr.kind === 'binary');
  const mul = parseExpr('-a * 2');
  assert.ok(mul.kind === 'binary' && mul.lhs.kind === 'unary');
  assert.equal(typeOf(parseExpr('1 + 1')), 'scalar');
  assert.equal(typeOf(parseExpr('foo[5m]')), 'matrix');
  assert.equal(typeOf(parseExpr('"x"')), 'string');
});

const ERRORS: [string, string][] = [
  ['', '1:1: parse error: no expression found in input'],
  ['sum(', '1:5: parse error: unclosed left parenthesis'],
  ['foo{', '1:5: parse error: unexpected end of input inside braces'],
  ['foo)', "1:4: parse error: unexpected right parenthesis ')'"],
  ['{}', '1:1: parse error: vector selector must contain at least one non-empty matcher'],
  ['{a=~".*"}', '1:1: parse error: vector selector must contain at least one non-empty matcher'],
  ['foo{__name__="bar"}', '1:1: parse error: metric name must not be set twice: "foo" or "bar"'],
  ['rate(foo)', '1:6: parse error: expected type range vector in call to function "rate", got instant vector'],
  ['abs(foo[5m])', '1:5: parse error: expected type instant vector in call to function "abs", got range vector'],
  ['nosuch(foo)', '1:1: parse error: unknown function with name "nosuch"'],
  ['round()', '1:1: parse error: expected at least 1 argument(s) in call to "round", got 0'],
  ['round(a, 1, 2)', '1:1: parse error: expected at most 2 argument(s) in call to "round", got 3'],
  ['time(1)', '1:1: parse error: expected 0 argument(s) in call to "time", got 1'],
  ['1 > 2', '1:3: parse error: comparisons between scalars must use BOOL modifier'],
  ['a + bool b', '1:3: parse error: bool modifier can only be used on comparison operators'],
  ['1 and 2', '1:3: parse error: set operator "and" not allowed in binary scalar expression'],
  ['a and on(x) group_left b', '1:3: parse error: no grouping allowed for "and" operation'],
  ['a + on(x) group_left(x) b', '1:3: parse error: label "x" must not occur in ON and GROUP clause at once'],
  ['foo[5m] + 1', '1:1: parse error: binary expression must contain only scalar and instant vector types'],
  ['sum(foo[5m])', '1:5: parse error: expected type instant vector in aggregation expression, got range vector'],
  ['topk(foo, bar)', '1:6: parse error: expected type scalar in aggregation parameter, got instant vector'],
  ['topk(bar)', '1:1: parse error: wrong number of arguments for aggregate expression provided, expected 2, got 1'],
  ['(foo + bar)[5m]', '1:12: parse error: ranges only allowed for vector selectors'],
  ['foo[5m][5m:]', '1:1: parse error: subquery is only allowed on instant vector, got range vector instead'],
  ['sum(foo) offset 5m', '1:10: parse error: offset modifier must be preceded by an instant vector selector or range vector selector or a subquery'],
  ['foo offset 1m offset 2m', '1:15: parse error: offset may not be set multiple times'],
  ['foo @ 1 @ 2', '1:9: parse error: @ <timestamp> may not be set multiple times'],
  ['foo[5x]', '1:5: parse error: bad number or duration syntax: "5x"'],
  ['foo[1m1h]', '1:5: parse error: not a valid duration string: "1m1h"'],
  ['"unterminated', '1:14: parse error: unterminated quoted string'],
  ['-"a"', '1:1: parse error: unary expression only allowed on expressions of type scalar or instant vector, got "string"'],
  ['foo bar', '1:5: parse error: unexpected identifier "bar"'],
];

test('parse errors carry Prometheus messages and positions', () => {
  for (const [input, want] of ERRORS) {
    assert.throws(() => parseExpr(input), (e: Error) => { assert.equal(e.message, want, input); return true; }, input);
  }
});
