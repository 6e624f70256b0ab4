/**
 * A regex matcher's union of postings (gathered into one array per block, one bitmap for the head's
 * one-series pairs) selects exactly the series whose label matches, in a block and in the head alike; label
 * values restricted to selected series agree too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeIndex, type IndexSeries } from './index-writer.ts';
import { BlockIndexReader } from './index-reader.ts';
import { BlockPostings } from './block-postings.ts';
import { LabelIndex } from './postings.ts';
import { compareLabels, newMatcher, MATCH_EQUAL, MATCH_NOT_REGEXP, MATCH_REGEXP, type Labels, type Matcher } from './api.ts';

/** 300 series with a per-series `id` (`dup` on three of them, so its list has three refs) and a `group`. */
function seriesSet(): IndexSeries[] {
  const out: IndexSeries[] = [];
  for (let i = 0; i < 300; i++) {
    const id = i % 100 === 7 ? 'dup' : `s${i}`;
    const labels: Labels = [{ name: '__name__', value: 'm' }, { name: 'group', value: `g${i % 3}` }, { name: 'id', value: id }, { name: 'n', value: String(i) }];
    out.push({ labels, chunks: [{ mint: 0, maxt: 10, ref: 8 + i }] });
  }
  return out.sort((a, b) => compareLabels(a.labels, b.labels));
}

const SELECTORS: Matcher[][] = [
  [newMatcher(MATCH_REGEXP, 'id', 's1.*|s2.*')],
  [newMatcher(MATCH_REGEXP, 'id', 'dup|s5.*')],
  [newMatcher(MATCH_REGEXP, 'id', '.*9')],
  [newMatcher(MATCH_REGEXP, 'id', 'nothing.*')],
  [newMatcher(MATCH_REGEXP, 'id', 's1.*'), newMatcher(MATCH_EQUAL, 'group', 'g1')],
  [newMatcher(MATCH_EQUAL, '__name__', 'm'), newMatcher(MATCH_NOT_REGEXP, 'id', 's.*')],
  [newMatcher(MATCH_REGEXP, 'id', 's[0-4]+'), newMatcher(MATCH_NOT_REGEXP, 'group', 'g0|g2')],
];

/** The `n` labels of the series whose labels satisfy every matcher, sorted. */
function expected(series: readonly IndexSeries[], ms: readonly Matcher[]): string[] {
  const val = (ls: Labels, name: string): string => ls.find((l) => l.name === name)?.value ?? '';
  return series.filter((s) => ms.every((m) => m.matches(val(s.labels, m.name)))).map((s) => val(s.labels, 'n')).sort();
}

test('a regex over a high-cardinality label selects the same series from a block and from the head', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'postings-union-'));
  try {
    const series = seriesSet();
    const file = path.join(dir, 'index');
    writeFileSync(file, encodeIndex(series));
    const reader = new BlockIndexReader(file);
    try {
      const block = new BlockPostings(reader);
      const head = new LabelIndex();
      const headLabels: Labels[] = [];
      series.forEach((s, i) => { head.add(i + 1, s.labels); headLabels[i + 1] = s.labels; });
      const nOf = (ls: Labels): string => ls.find((l) => l.name === 'n')!.value;
      for (const ms of SELECTORS) {
        const want = expected(series, ms);
        const fromBlock = block.select(ms).toArray().map((ref) => nOf(reader.series(ref).labels)).sort();
        const fromHead = head.select(ms).toArray().map((ref) => nOf(headLabels[ref])).sort();
        const what = ms.map((m) => `${m.name}~${m.value}`).join(',');
        assert.deepEqual(fromBlock, want, `block ${what}`);
        assert.deepEqual(fromHead, want, `head ${what}`);
      }
      // Label values restricted to the selected series read each value's refs without a bitmap per value.
      for (const ms of SELECTORS) {
        const val = (ls: Labels, name: string): string => ls.find((l) => l.name === name)?.value ?? '';
        const picked = series.filter((x) => ms.every((m) => m.matches(val(x.labels, m.name))));
        for (const name of ['id', 'group', 'absent']) {
          const want = [...new Set(picked.map((x) => val(x.labels, name)).filter((v) => v !== ''))].sort();
          assert.deepEqual(block.labelValues(name, block.select(ms)), want, `block values of ${name}`);
          assert.deepEqual(head.labelValues(name, head.select(ms)), want, `head values of ${name}`);
        }
      }
      // The result is the caller's to change: a second select is unaffected by changes to the first.
      const first = block.select(SELECTORS[0]);
      first.clear();
      assert.equal(block.select(SELECTORS[0]).size, expected(series, SELECTORS[0]).length);
      const h = head.select(SELECTORS[1]);
      h.clear();
      assert.equal(head.select(SELECTORS[1]).size, expected(series, SELECTORS[1]).length);
    } finally { reader.close(); }
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('an empty head index (its all-series bitmap is made with the first series) selects nothing and takes removals', () => {
  const index = new LabelIndex();
  const labels: Labels = [{ name: '__name__', value: 'm' }, { name: 'id', value: 's1' }];
  index.remove(1, labels);
  // Only a matcher that matches "" starts from all series.
  assert.deepEqual([...index.select([newMatcher(MATCH_NOT_REGEXP, 'id', 'x')])], []);
  assert.deepEqual([...index.select([newMatcher(MATCH_EQUAL, 'id', 's1')])], []);
  index.add(1, labels);
  index.add(2, [{ name: '__name__', value: 'm' }, { name: 'id', value: 's2' }]);
  assert.deepEqual([...index.select([newMatcher(MATCH_NOT_REGEXP, 'id', 'x')])], [1, 2]);
  index.remove(1, labels);
  assert.deepEqual([...index.select([newMatcher(MATCH_NOT_REGEXP, 'id', 'x')])], [2]);
  assert.deepEqual([...index.all], [2]);
});
