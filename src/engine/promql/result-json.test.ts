/** The result encoder's fast paths print exactly what the general formatter and Go's JSON escaping print. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonString, matrixJson, metricJson, resultJsonOpen } from './result-json.ts';
import { formatSampleValue } from './format.ts';

const VALUES = [0, -0, 1, -1, 9, 10, 11, 99, 100, 12345, -98765, 1e15, 1e15 + 1, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 2 ** 53 + 2,
  1e20, 1e21, -1e21, 1e300, 0.5, -0.25, 0.1, 1 / 3, 1e-6, 1e-7, -1.5e-7, 5e-324, NaN, Infinity, -Infinity, 123.456, 4294967296, 4294967295];

test('sample values: digit-by-digit integers and the general path equal formatSampleValue', () => {
  const m = [{ metric: [{ name: 'a', value: 'b' }], t: VALUES.map((_, i) => i * 1000), v: VALUES }];
  const got = JSON.parse(matrixJson(m).toString() + '}').result[0].values.map((p: [number, string]) => p[1]);
  assert.deepEqual(got, VALUES.map(formatSampleValue));
  for (const v of VALUES) {
    const r = JSON.parse(resultJsonOpen({ type: 'vector', vector: [{ metric: [], t: 0, v }], t: 0 }).toString() + '}');
    assert.equal(r.result[0].value[1], formatSampleValue(v));
  }
});

test('jsonString: the plain-ASCII fast path and escaping agree with Go (HTML-safe)', () => {
  const f = (s: string, want: string): void => assert.equal(jsonString(s), want);
  f('', '""');
  f('/api/v1', '"/api/v1"');
  f('a"b', '"a\\"b"');
  f('a\\b', '"a\\\\b"');
  f('<&>', '"\\u003c\\u0026\\u003e"');
  f('\n\t', '"\\n\\t"');
  f('é\u2028', '"é\\u2028"');
  f('~ !', '"~ !"');
});

test('matrixJson: timestamps looked up by step index print as the map path prints them', () => {
  const m = [
    { metric: [{ name: 'a', value: '1' }], t: [1500, 61_500, 121_500], v: [1, 2.5, NaN] },
    { metric: [{ name: 'a', value: '2' }], t: [61_500, 121_500], v: [-0, 1e-7] },
    { metric: [{ name: 'a', value: '3' }], t: [-58_500, 1500], v: [3, 4] },
  ];
  assert.equal(matrixJson(m, 1500, 60_000).toString(), matrixJson(m).toString());
  assert.ok(matrixJson(m, 1500, 60_000).toString().startsWith('{"resultType":"matrix","result":[{"metric":{"a":"1"},"values":[[1.500,"1"],[61.500,"2.5"],[121.500,"NaN"]]}'));
});

test('label sets with non-ASCII text are written as UTF-8', () => {
  const m = [{ metric: [{ name: 'city', value: 'Zürich ✓' }], t: [0], v: [1] }];
  assert.deepEqual(JSON.parse(matrixJson(m).toString('utf8') + '}').result[0].metric, { city: 'Zürich ✓' });
  const r = JSON.parse(resultJsonOpen({ type: 'vector', vector: [{ metric: [{ name: 'a', value: 'é<' }], t: 0, v: 2 }], t: 0 }).toString('utf8') + '}');
  assert.deepEqual(r.result[0].metric, { a: 'é<' });
});

test('label sets are written in place exactly as metricJson prints them', () => {
  const sets = [[], [{ name: '__name__', value: 'up' }, { name: 'job', value: 'a"b<c>&\\d' }], [{ name: 'x', value: 'é😀\n\u2028' }, { name: 'y', value: '' }]];
  const vector = sets.map((metric, i) => ({ metric, t: 1500, v: i }));
  const want = '{"resultType":"vector","result":[' + sets.map((m, i) => `{"metric":${metricJson(m)},"value":[1.500,"${i}"]}`).join(',') + ']';
  assert.equal(resultJsonOpen({ type: 'vector', vector, t: 1500 }).toString(), want);
  const matrix = sets.map((metric, i) => ({ metric, t: [1000], v: [i] }));
  const wantM = '{"resultType":"matrix","result":[' + sets.map((m, i) => `{"metric":${metricJson(m)},"values":[[1,"${i}"]]}`).join(',') + ']';
  assert.equal(matrixJson(matrix).toString(), wantM);
});

test('a result written in many pieces (megabytes) is the same text as its parts printed one by one, in one buffer of its own', () => {
  // Label values of growing length, some non-ASCII, so writes land on every side of the pieces' boundaries.
  const matrix = Array.from({ length: 3000 }, (_, i) => ({
    metric: [{ name: 'i', value: (i % 7 === 0 ? 'é✓' : 'x').repeat(i % 50) + String(i) }],
    t: Array.from({ length: 60 }, (_, k) => k * 15_000),
    v: Array.from({ length: 60 }, (_, k) => (k % 3 === 0 ? k / 7 : k * i)),
  }));
  const got = matrixJson(matrix, 0, 15_000);
  const want = '{"resultType":"matrix","result":[' + matrix.map((s) => `{"metric":${metricJson(s.metric)},"values":[` +
    s.t.map((t, k) => `[${t / 1000},"${formatSampleValue(s.v[k])}"]`).join(',') + ']}').join(',') + ']';
  assert.ok(got.length > 2 * 1024 * 1024, `${got.length} bytes: pieces of 64 KB doubling, so six of them`);
  assert.equal(got.toString('utf8'), want);
  assert.equal(got.byteOffset, 0);
  assert.equal(got.buffer.byteLength, got.length, 'the text owns its buffer (transferred without a copy)');
});
