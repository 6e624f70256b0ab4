/**
 * A reader's term memo (`IndexReader.termIds`, `termStats`): per segment, the id each dictionary gives the term
 * (−1 where absent) and the statistics summed over them, the same on every call, past the memo's bound, and
 * within scores equal to a fresh reader's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScratchIndex } from '../support/scratch-index.ts';
import { searchShard } from '../../src/engine/search/shard-search.ts';
import { parseSearchBodyText } from '../../src/engine/search/search-request.ts';

const mapping = { properties: { f: { type: 'text' } } };

test('term ids per segment equal each dictionary\'s lookup, repeated and beyond the memo bound', async () => {
  const si = new ScratchIndex();
  try {
    // Three segments with overlapping vocabularies: word i is in segment s when i % (s + 2) == 0.
    for (let s = 0; s < 3; s++) {
      for (let i = 0; i < 9000; i += s + 2) si.add(`${s}-${i}`, { f: `w${i} common` }, mapping);
      si.index.refresh();
    }
    const reader = si.index.reader(mapping);
    assert.equal(reader.segments.length, 3);
    const words = ['common', 'absent', ...Array.from({ length: 9000 }, (_, i) => `w${i}`)];
    for (let round = 0; round < 2; round++) {
      for (const w of words) {
        const want = reader.segments.map((seg) => seg.field('f')?.termId(w) ?? -1);
        assert.deepEqual([...reader.termIds('f', w)], want, `${w}, round ${round}`);
        // Statistics remembered with the ids: the sums over the segments' dictionaries.
        let docFreq = 0, totalTermFreq = 0;
        reader.segments.forEach((seg, i) => { if (want[i] >= 0) { docFreq += seg.field('f')!.docFreq(want[i]); totalTermFreq += seg.field('f')!.totalTermFreq(want[i]); } });
        assert.deepEqual(reader.termStats('f', w), { docFreq, totalTermFreq }, `${w} stats, round ${round}`);
      }
    }
    assert.deepEqual([...reader.termIds('nofield', 'common')], [-1, -1, -1]);
    // Scores through the memo equal those of the statistics summed directly.
    const res = searchShard(reader, parseSearchBodyText(JSON.stringify({ query: { match: { f: 'w6 w12' } }, size: 50 })), { index: 'i', nowMs: 0 });
    const stats = reader.segments.reduce((n, seg) => { const f = seg.field('f'); const t = f ? f.termId('w6') : -1; return n + (t >= 0 ? f!.docFreq(t) : 0); }, 0);
    assert.equal(reader.termStats('f', 'w6').docFreq, stats);
    assert.equal(stats, 2);
    assert.deepEqual(res.hits.map((h) => h.id).sort(), ['0-12', '0-6', '1-12', '1-6', '2-12'].sort());
  } finally {
    await si.close();
  }
});
