/** Two parts' texts spliced by `mergeMatrixJson` equal, byte for byte, the text of the whole matrix. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeMatrixJson } from './matrix-json-merge.ts';
import type { MatrixJsonPart } from './matrix-json-merge.ts';
import { matrixJson, SERIES_INDEX_FIELDS } from './result-json.ts';
import { compareLabels } from './labels.ts';
import type { Labels } from '../tsdb/api.ts';
import type { Matrix } from './value.ts';

const START = 1_700_000_000_000, STEP = 15_000;

// Values whose texts order differently from the label sets (`a` < `a!` as labels, `"a!"` < `"a"` as text),
// escaped ones, non-ASCII, and label sets that are prefixes of others.
const VALUES = ['a', 'a!', 'a"b', '<x&y>', 'é', 'b', ''];
const LABEL_SETS: Labels[] = [[]];
for (const v of VALUES) {
  LABEL_SETS.push([{ name: '__name__', value: 'm' }, { name: 'job', value: v }]);
  LABEL_SETS.push([{ name: 'job', value: v }]);
  LABEL_SETS.push([{ name: 'job', value: v }, { name: 'le', value: '+Inf' }]);
}
LABEL_SETS.sort(compareLabels);
const POINT_VALUES = [0, -0, 1, 2.5, NaN, Infinity, -Infinity, 1e21, 123456789];

/** A deterministic generator (mulberry32), so a failure names its seed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The series of `whole` restricted to steps `[from, to)`, without those left with no point. */
function steps(whole: Matrix, from: number, to: number): Matrix {
  const out: Matrix = [];
  for (const s of whole) {
    const part = { metric: s.metric, t: [] as number[], v: [] as number[] };
    for (let i = 0; i < s.t.length; i++) {
      const k = (s.t[i] - START) / STEP;
      if (k >= from && k < to) { part.t.push(s.t[i]); part.v.push(s.v[i]); }
    }
    if (part.t.length > 0) out.push(part);
  }
  return out;
}

function part(m: Matrix, firstStep: number): MatrixJsonPart {
  const index = new Float64Array(m.length * SERIES_INDEX_FIELDS);
  return { json: matrixJson(m, START + firstStep * STEP, STEP, index), index };
}

test('merging the two parts of random matrices gives the whole matrix text', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const rnd = random(seed);
    const n = 1 + Math.floor(rnd() * 12), mid = Math.floor(rnd() * (n + 1));
    const whole: Matrix = [];
    for (const metric of LABEL_SETS) {
      if (rnd() < 0.3) continue;
      const s = { metric, t: [] as number[], v: [] as number[] };
      // Series that start or stop part-way, and some with gaps.
      const from = Math.floor(rnd() * n), to = from + Math.floor(rnd() * (n - from + 1));
      for (let k = from; k < to; k++) {
        if (rnd() < 0.2) continue;
        s.t.push(START + k * STEP); s.v.push(POINT_VALUES[Math.floor(rnd() * POINT_VALUES.length)]);
      }
      if (s.t.length > 0) whole.push(s);
    }
    const merged = Buffer.concat(mergeMatrixJson(part(steps(whole, 0, mid), 0), part(steps(whole, mid, n), mid)));
    assert.equal(merged.toString(), matrixJson(whole, START, STEP).toString(), `seed ${seed}`);
  }
});

test('empty parts merge into an empty matrix, and a part alone is kept as it is', () => {
  const empty = part([], 0);
  assert.equal(Buffer.concat(mergeMatrixJson(empty, empty)).toString(), '{"resultType":"matrix","result":[]');
  const one: Matrix = [{ metric: [{ name: 'job', value: 'a' }], t: [START, START + STEP], v: [1, NaN] }];
  assert.equal(Buffer.concat(mergeMatrixJson(part(one, 0), empty)).toString(), matrixJson(one).toString());
  assert.equal(Buffer.concat(mergeMatrixJson(empty, part(one, 0))).toString(), matrixJson(one).toString());
});
