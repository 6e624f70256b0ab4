/**
 * Search bodies are parsed natively when they are well formed and again with value locations when anything
 * fails: the result must not depend on the path — same request for valid bodies, same error (with line and
 * column) for invalid ones, and nothing JSON.parse lets through (duplicate keys, excessive nesting) accepted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSearchBody, parseSearchBodyText } from '../../src/engine/search/search-request.ts';
import { parseJsonWithPos } from '../../src/engine/search/json-pos.ts';

const withLocations = (text: string) => parseSearchBody(parseJsonWithPos(text) as Record<string, unknown>);
const errorOf = (f: () => unknown): Record<string, unknown> => {
  try { f(); } catch (e) { return { name: (e as Error).name, message: (e as Error).message, ...(e as { details?: object }).details }; }
  return assert.fail('no error');
};

test('valid bodies give the request the location-tracking parser gives', () => {
  const bodies = [
    '{"query":{"match":{"body":{"query":"abc def","operator":"and"}}}}',
    '{"size":0,"query":{"term":{"host":"host-001"}},"aggs":{"levels":{"terms":{"field":"level"}},"bytes":{"stats":{"field":"bytes"}}}}',
    '{"query":{"bool":{"must":[{"match":{"body":"x"}}],"filter":[{"range":{"ts":{"gte":"2026-10-01T00:00:00.000Z","lt":"2026-10-02T00:00:00.000Z"}}}]}},"sort":[{"ts":"desc"}]}',
    '{"from":5,"size":3,"_source":["a","b.*"],"query":{"multi_match":{"query":"q \\u00e9\\n","fields":["t^2","b"]}},"highlight":{"fields":{"b":{}}},"min_score":0.5}',
    ' {\n  "query" : { "match_all" : {} } ,\n  "track_total_hits" : false\n} ',
    '{}', '',
  ];
  for (const b of bodies) assert.deepEqual(parseSearchBodyText(b), b.trim() === '' ? parseSearchBodyText('{}') : withLocations(b), b);
});

test('invalid bodies fail as with the location-tracking parser, line and column included', () => {
  const deep = '{"query":' + '{"bool":{"must":['.repeat(400) + '{"match_all":{}}' + ']}}'.repeat(400) + '}';
  const cases: [string, RegExp][] = [
    ['{"query":{"matchx":{}}}', /no \[query\] registered for \[matchx\]/],
    ['{"size":1,"size":2}', /Duplicate field 'size'/],
    ['{"query":{"match":{"a":"x","a":"y"}}}', /Duplicate field 'a'/],
    ['{"query":{"match":{"a":"x"}}', /EOF/],
    ['{"size":"many"}', /For input string: "many"/],
    [deep, /nesting depth exceeds the maximum allowed/],
  ];
  for (const [text, reason] of cases) {
    const fast = errorOf(() => parseSearchBodyText(text));
    const slow = errorOf(() => withLocations(text));
    assert.match(String(fast.message), reason, text.slice(0, 60));
    assert.deepEqual(fast, slow, text.slice(0, 60));
  }
  assert.match(String(errorOf(() => parseSearchBodyText('[1]')).message), /Expected \[START_OBJECT\] but found \[START_ARRAY\]/);
  const e = errorOf(() => parseSearchBodyText('{\n  "query": {"matchx": {}}}'));
  assert.deepEqual([e.line, e.col], [2, 23]);
});
