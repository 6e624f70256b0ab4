/**
 * The merged `_id` dictionary comes from a k-way merge of the inputs' sorted ids: every live id once, with its
 * new doc and versions; deleted docs left out; the same live id in two inputs refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScratchIndex } from '../../../test/support/scratch-index.ts';
import { writeSegment } from './segment-writer.ts';
import { DiskSegment } from './disk-segment.ts';
import { BlockCache } from './block-cache.ts';
import type { Segment } from '../postings/segment.ts';

const mapping = { properties: { f: { type: 'keyword' } } };

async function diskSegmentOf(ids: string[]): Promise<{ si: ScratchIndex; seg: Segment }> {
  const si = new ScratchIndex();
  ids.forEach((id, i) => si.add(id, { f: `v${i}` }, mapping, i + 1));
  si.index.refresh();
  await si.flush();
  const segs = si.index.reader(mapping).segments;
  assert.equal(segs.length, 1);
  assert.ok(segs[0] instanceof DiskSegment);
  return { si, seg: segs[0] };
}

test('merged ids: each live id once, in order, with its new doc and version; deleted ones left out', async () => {
  const a = await diskSegmentOf(['m', 'b', 'z', 'd']);
  const b = await diskSegmentOf(['c', 'a', 'y', 'e']);
  const out = mkdtempSync(join(tmpdir(), 'merge-ids-'));
  try {
    // b's doc 2 ('y') is deleted.
    const live = new Uint8Array([1, 1, 0, 1]);
    const w = await writeSegment(out, '_m', [{ seg: a.seg, live: null }, { seg: b.seg, live }], { sync: false });
    assert.equal(w.info.numRoots, 7);
    const m = DiskSegment.open(out, '_m', new BlockCache(1 << 20));
    const dict = m.idDictionary;
    const got = Array.from({ length: dict.numTerms }, (_, o) => [dict.term(o), dict.value(o, 0), dict.value(o, 2)]);
    // a's docs keep 0–3; b's live docs follow at 4–6 (its deleted doc 2 gone).
    assert.deepEqual(got, [['a', 5, 2], ['b', 1, 2], ['c', 4, 1], ['d', 3, 4], ['e', 6, 4], ['m', 0, 1], ['z', 2, 3]]);
    for (const [id, doc] of got) assert.equal(m.lookupId(id as string), doc);
    assert.equal(m.lookupId('y'), -1);
    m.decRef();
  } finally {
    rmSync(out, { recursive: true, force: true });
    await a.si.close(); await b.si.close();
  }
});

test('the same live id in two inputs of a merge is refused', async () => {
  const a = await diskSegmentOf(['a', 'k']);
  const b = await diskSegmentOf(['k', 'q']);
  const out = mkdtempSync(join(tmpdir(), 'merge-ids-'));
  try {
    await assert.rejects(writeSegment(out, '_m', [{ seg: a.seg, live: null }, { seg: b.seg, live: null }], { sync: false }), /duplicate _id \[k\]/);
  } finally {
    rmSync(out, { recursive: true, force: true });
    await a.si.close(); await b.si.close();
  }
});

test('merged exists lists: the docs that have the field, renumbered, deleted ones left out', async () => {
  const withG = { properties: { f: { type: 'keyword' }, g: { type: 'text' } } };
  const segmentOf = async (docs: [string, boolean][]): Promise<{ si: ScratchIndex; seg: Segment }> => {
    const si = new ScratchIndex();
    docs.forEach(([id, g], i) => si.add(id, g ? { f: id, g: `text ${id}` } : { f: id }, withG, i + 1));
    si.index.refresh();
    await si.flush();
    return { si, seg: si.index.reader(withG).segments[0] };
  };
  const a = await segmentOf([['a', true], ['b', false], ['c', true]]);
  const b = await segmentOf([['d', false], ['e', true], ['f', true], ['g', true]]);
  const out = mkdtempSync(join(tmpdir(), 'merge-exists-'));
  try {
    assert.deepEqual(Array.from(b.seg.exists('g') ?? []), [1, 2, 3], 'the input has the list the test expects');
    // b's doc 2 ('f') is deleted: a keeps docs 0–2, b's live docs follow at 3–5.
    const live = new Uint8Array([1, 1, 0, 1]);
    await writeSegment(out, '_m', [{ seg: a.seg, live: null }, { seg: b.seg, live }], { sync: false });
    const m = DiskSegment.open(out, '_m', new BlockCache(1 << 20));
    assert.deepEqual(Array.from(m.exists('g') ?? []), [0, 2, 4, 5]);
    m.decRef();
  } finally {
    rmSync(out, { recursive: true, force: true });
    await a.si.close(); await b.si.close();
  }
});
