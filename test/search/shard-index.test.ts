/**
 * The shard index against a naive model under random programs (fast-check) of index / update / delete /
 * refresh / write-out / flush / merge / forced merge / restart steps. After every step: term, range, phrase,
 * keyword-sort and nested queries see exactly the model's visible documents; counts agree; real-time reads
 * (source and version of every id) equal the model's latest state; whenever no deleted doc is still counted
 * by a visible segment (Lucene's statistics rule), scores equal those of a fresh index holding just the visible
 * documents, so statistics add up across segments. A restart keeps exactly what was flushed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readdirSync } from 'node:fs';
import { searchShard } from '../../src/engine/search/shard-search.ts';
import { parseSearchBodyText } from '../../src/engine/search/search-request.ts';
import { ScratchIndex } from '../support/scratch-index.ts';
import type { DiskSegment } from '../../src/engine/segments/disk-segment.ts';
import type { IndexStats } from '../../src/engine/indexing/index.ts';

const mapping = { properties: { f: { type: 'text' }, k: { type: 'keyword' }, n: { type: 'long' }, kids: { type: 'nested', properties: { c: { type: 'keyword' } } } } };
type Doc = { f: string; k: string; n: number; kids: { c: string }[] };
type Op =
  | { op: 'index'; id: string; doc: Doc } | { op: 'delete'; id: string } | { op: 'refresh' } | { op: 'writeOut' }
  | { op: 'flush' } | { op: 'merge' } | { op: 'forceMerge'; max: number } | { op: 'restart' };

const word = fc.constantFrom('red', 'green', 'blue', 'cyan');
const docArb: fc.Arbitrary<Doc> = fc.record({
  f: fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' ')),
  k: fc.constantFrom('a', 'b', 'c'),
  n: fc.integer({ min: 0, max: 20 }),
  kids: fc.array(fc.record({ c: fc.constantFrom('x', 'y') }), { maxLength: 2 }),
});
const idArb = fc.constantFrom(...Array.from({ length: 12 }, (_, i) => String(i)));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ op: fc.constant('index' as const), id: idArb, doc: docArb }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), id: idArb }) },
  { weight: 3, arbitrary: fc.constant({ op: 'refresh' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'writeOut' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'flush' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'merge' as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('forceMerge' as const), max: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'restart' as const }) },
);

function search(si: ScratchIndex, body: unknown) {
  return searchShard(si.index.reader(mapping), parseSearchBodyText(JSON.stringify({ size: 100, ...body as object })), { index: 'i', nowMs: 0 });
}
const ids = (si: ScratchIndex, body: unknown): string[] => search(si, body).hits.map((h) => h.id);

interface Model { doc: Doc; version: number }

test('the shard index matches a naive model across refreshes, write-outs, flushes, merges and restarts', async () => {
  let restarts = 0, merges = 0;
  await fc.assert(fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 80, size: 'max' }), async (ops) => {
    const si = new ScratchIndex();
    const live = new Map<string, Model>();
    let visible = new Map<string, Doc>(), flushed = new Map<string, Model>();
    try {
      for (const o of ops) {
        if (o.op === 'index') {
          const prev = live.get(o.id);
          // fast-check's records have no prototype; the model keeps plain objects, as JSON.parse makes.
          const doc = JSON.parse(JSON.stringify(o.doc)) as Doc;
          si.add(o.id, doc as unknown as Record<string, unknown>, mapping, (prev?.version ?? 0) + 1);
          live.set(o.id, { doc, version: (prev?.version ?? 0) + 1 });
        } else if (o.op === 'delete') {
          assert.equal(si.delete(o.id), live.has(o.id));
          live.delete(o.id);
        } else if (o.op === 'refresh') { si.index.refresh(); visible = new Map([...live].map(([id, m]) => [id, m.doc])); }
        else if (o.op === 'writeOut') await si.index.writeOutMemory();
        else if (o.op === 'flush') { await si.flush(); flushed = new Map(live); }
        else if (o.op === 'merge') { await si.index.forceMerge(1, false); merges++; }
        else if (o.op === 'forceMerge') { await si.index.forceMerge(o.max, false); merges++; }
        else {
          // A restart without a translog: the last commit is the whole state, and all of it is visible.
          await si.restart();
          restarts++;
          live.clear();
          for (const [id, m] of flushed) live.set(id, m);
          visible = new Map([...live].map(([id, m]) => [id, m.doc]));
        }
        checkReads(si, live);
        checkSearches(si, visible);
        if (si.index.stats().deleted === 0 && visible.size > 0) await checkScores(si, visible);
      }
    } finally {
      await si.close();
    }
  }), { numRuns: 60 });
  assert.ok(restarts > 0 && merges > 0, 'programs exercise restarts and merges');
});

const doc = (f: string): Doc => ({ f, k: 'a', n: 1, kids: [] });

test('a flush commits the buffer it cut even when a refresh shows that buffer while the flush writes', async () => {
  const si = new ScratchIndex();
  try {
    si.add('a', doc('red') as unknown as Record<string, unknown>, mapping);
    si.index.refresh();
    si.add('b', doc('blue') as unknown as Record<string, unknown>, mapping);
    const flushed = si.flush();
    si.index.refresh(); // while the flush writes the segment `a` is in, `b`'s hidden segment becomes visible
    await flushed;
    await si.restart(); // the commit alone, as after a crash that truncated the translog
    assert.ok(si.index.get('a'), 'a in the commit');
    assert.ok(si.index.get('b'), 'b in the commit');
  } finally {
    await si.close();
  }
});

test('a flush waits for the translog to be durable before it writes its commit point', async () => {
  const si = new ScratchIndex();
  try {
    si.add('a', doc('red') as unknown as Record<string, unknown>, mapping);
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    let reached!: () => void;
    const atBarrier = new Promise<void>((r) => { reached = r; });
    let durable = false;
    const translog = { idle: () => durable, drain: () => { reached(); return released.then(() => { durable = true; }); }, failure: () => null };
    const before = si.index.lastCommit?.generation ?? -1;
    const flushed = si.index.flush({ translogSegment: 0, translogOffset: 0, maxSeqNo: 0 }, translog);
    await atBarrier;
    assert.equal(si.index.lastCommit?.generation ?? -1, before, 'no commit while appends are in flight');
    release();
    const commit = await flushed;
    assert.ok(commit.generation > before);
    assert.equal(si.index.lastCommit?.generation, commit.generation);
  } finally {
    await si.close();
  }
});

test('a flush whose translog batch failed while it waited writes no commit point', async () => {
  const si = new ScratchIndex();
  try {
    si.add('a', doc('red') as unknown as Record<string, unknown>, mapping);
    await si.flush();
    const before = si.index.lastCommit!.generation;
    // An update: its delete of the old copy lands in the committed segment's live docs at once, before its
    // translog record is durable — and that record's batch fails.
    si.add('a', doc('blue') as unknown as Record<string, unknown>, mapping, 2);
    const diskFull = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    let settled = false;
    const translog = { idle: () => settled, drain: async () => { settled = true; }, failure: () => (settled ? diskFull : null) };
    await assert.rejects(si.index.flush({ translogSegment: 0, translogOffset: 0, maxSeqNo: 1 }, translog), /ENOSPC/);
    assert.equal(si.index.lastCommit!.generation, before, 'the refused update\'s delete of the old copy is not committed');
    await si.restart();
    assert.equal(JSON.parse(Buffer.from(si.index.get('a')!.source).toString()).f, 'red', 'the acknowledged copy is what a reopen finds');
  } finally {
    await si.close();
  }
});

test('a merge committed before the refresh that shows it deletes its inputs\' files at that refresh', async () => {
  const si = new ScratchIndex({}, { autoMerge: true });
  try {
    // Eleven visible committed segments: one more than the tiered policy's segments_per_tier.
    for (let b = 0; b < 11; b++) {
      for (let i = 0; i < 3; i++) si.add(`${b}-${i}`, doc('red') as unknown as Record<string, unknown>, mapping);
      si.index.refresh();
      await si.flush();
    }
    assert.ok(si.index.merging, 'the eleventh refresh started a background merge');
    while (si.index.merging) await new Promise((r) => setImmediate(r));
    // The merged segment is committed while the current reader still shows (and so keeps the files of) its inputs.
    await si.flush();
    si.index.refresh();
    const onDisk = readdirSync(si.dir).filter((f) => f.endsWith('.si')).map((f) => f.slice(0, -3)).sort();
    const shown = si.index.reader(mapping).segments.map((x) => x.name).sort();
    assert.ok(shown.length < 11);
    assert.deepEqual(onDisk, shown, 'only the segments the reader and the commit name stay on disk');
    assert.equal(ids(si, { query: { match_all: {} } }).length, 33);
  } finally {
    await si.close();
  }
});

test('a merge copies the stored blocks of inputs without deletes as they are, and every doc reads back the same', async () => {
  const si = new ScratchIndex();
  try {
    const words = ['red', 'green', 'blue', 'cyan'];
    for (const seg of ['a', 'b', 'c']) {
      for (let i = 0; i < 150; i++) {
        const d: Doc = { f: `${words[i % 4]} ${words[(i * 7) % 4]} ${'x'.repeat(i % 90)}`, k: seg, n: i, kids: i % 3 === 0 ? [{ c: 'x' }, { c: 'y' }] : [] };
        si.add(`${seg}${i}`, d as unknown as Record<string, unknown>, mapping, 1 + (i % 5));
      }
      si.index.refresh();
      await si.flush();
    }
    si.delete('c7'); // segment c has a deleted doc: its entries are rewritten
    si.index.refresh();
    const segs = si.index.reader(mapping).segments as unknown as DiskSegment[];
    assert.deepEqual(segs.map((x) => x.onDisk), [true, true, true]);
    const blocksOf = (x: DiskSegment): Buffer[] => Array.from({ length: x.storedBlocks.blockCount }, (_, b) => Buffer.from(x.storedBlocks.compressedBlock(b)));
    const withDelete = segs.find((x) => x.lookupId('c0') >= 0)!;
    const copied = segs.filter((x) => x !== withDelete).flatMap(blocksOf);
    const rewritten = blocksOf(withDelete).map((b) => b.toString('hex'));
    assert.ok(copied.length >= 4, 'several blocks per segment');
    const before = new Map<string, unknown>();
    for (const seg of ['a', 'b', 'c']) for (let i = 0; i < 150; i++) {
      const g = si.index.get(`${seg}${i}`);
      before.set(`${seg}${i}`, g && [Buffer.from(g.source).toString(), g.version, g.seqNo]);
    }

    await si.index.forceMerge(1, false);
    si.index.refresh();
    const merged = si.index.reader(mapping).segments as unknown as DiskSegment[];
    assert.equal(merged.length, 1);
    const out = new Set(blocksOf(merged[0]).map((b) => b.toString('hex')));
    assert.ok(copied.every((b) => out.has(b.toString('hex'))), 'the all-live inputs\' blocks are in the merged segment byte for byte');
    assert.ok(!out.has(rewritten[0]), 'the block that held the deleted doc is written anew');
    for (const [id, b] of before) {
      const g = si.index.get(id);
      assert.deepEqual(g && [Buffer.from(g.source).toString(), g.version, g.seqNo], b, `doc ${id}`);
    }
    assert.equal(ids(si, { size: 500, query: { match_all: {} } }).length, 449);
    assert.equal(search(si, { query: { nested: { path: 'kids', query: { term: { 'kids.c': 'y' } } } } }).total, 150);
    await si.restart();
    assert.equal(JSON.parse(Buffer.from(si.index.get('b149')!.source).toString()).n, 149, 'read back after a reopen');
  } finally {
    await si.close();
  }
});

function checkReads(si: ScratchIndex, live: Map<string, Model>): void {
  for (let i = 0; i < 12; i++) {
    const id = String(i), m = live.get(id), got = si.index.get(id);
    assert.equal(got === null, m === undefined, `real-time presence of ${id}`);
    if (!m || !got) continue;
    assert.deepEqual(JSON.parse(Buffer.from(got.source).toString()), m.doc, `source of ${id}`);
    assert.equal(got.version, m.version, `version of ${id}`);
    assert.equal(si.index.version(id)!.version, m.version);
  }
}

function checkSearches(si: ScratchIndex, visible: Map<string, Doc>): void {
  const sorted = (pred: (d: Doc) => boolean): string[] => [...visible].filter(([, d]) => pred(d)).map(([id]) => id).sort();
  assert.deepEqual(ids(si, { query: { match: { f: 'red' } } }).sort(), sorted((d) => d.f.split(' ').includes('red')));
  assert.deepEqual(ids(si, { query: { range: { n: { gte: 5, lt: 15 } } } }).sort(), sorted((d) => d.n >= 5 && d.n < 15));
  // The range as a verified clause of a conjunction (two-phase), once as a filter and once with a second range.
  const blueMid = sorted((d) => d.f.split(' ').includes('blue') && d.n >= 5 && d.n < 15);
  assert.deepEqual(ids(si, { query: { bool: { must: [{ match: { f: 'blue' } }], filter: [{ range: { n: { gte: 5, lt: 15 } } }] } } }).sort(), blueMid);
  assert.deepEqual(ids(si, { query: { bool: { filter: [{ range: { n: { gte: 5 } } }, { range: { n: { lt: 15 } } }, { term: { k: 'a' } }] } } }).sort(),
    sorted((d) => d.n >= 5 && d.n < 15 && d.k === 'a'));
  assert.deepEqual(ids(si, { query: { bool: { filter: [{ range: { n: { gte: 5 } } }, { range: { n: { lt: 15 } } }] } } }).sort(), sorted((d) => d.n >= 5 && d.n < 15));
  const adjacent = (d: Doc, a: string, b: string): boolean => d.f.split(' ').some((w, i, all) => w === a && all[i + 1] === b);
  assert.deepEqual(ids(si, { query: { match_phrase: { f: 'red green' } } }).sort(), sorted((d) => adjacent(d, 'red', 'green')));
  assert.deepEqual(ids(si, { query: { match_phrase: { f: 'red green blue' } } }).sort(), sorted((d) => d.f.split(' ').some((w, i, all) => w === 'red' && all[i + 1] === 'green' && all[i + 2] === 'blue')));
  assert.deepEqual(ids(si, { query: { nested: { path: 'kids', query: { term: { 'kids.c': 'x' } } } } }).sort(), sorted((d) => d.kids.some((k) => k.c === 'x')));
  assert.deepEqual(ids(si, { query: { terms: { k: ['a', 'c'] } } }).sort(), sorted((d) => d.k === 'a' || d.k === 'c'));
  // A scored disjunction ranked by score alone takes the bulk path; min_score sends it through the per-doc loop.
  const either = sorted((d) => d.f.split(' ').some((w) => w === 'red' || w === 'blue'));
  for (const size of [2, 100]) {
    const bulk = search(si, { size, query: { match: { f: 'red blue' } } }), loop = search(si, { size, min_score: 0, query: { match: { f: 'red blue' } } });
    assert.equal(bulk.total, either.length);
    assert.equal(loop.total, either.length);
    assert.deepEqual(bulk.hits.map((h) => [h.id, h.score]), loop.hits.map((h) => [h.id, h.score]));
    assert.equal(bulk.maxScore, loop.maxScore);
  }
  assert.deepEqual(ids(si, { query: { match: { f: 'red blue' } } }).sort(), either);
  // match_all counts instead of iterating; a filter-only bool over it iterates: both give the same page.
  assert.deepEqual(ids(si, { query: { match_all: {} } }).sort(), sorted(() => true));
  for (const size of [0, 3]) {
    const counted = search(si, { size, query: { match_all: {} } }), iterated = search(si, { size, query: { bool: { filter: [{ match_all: {} }] } } });
    assert.equal(counted.total, visible.size);
    assert.equal(iterated.total, visible.size);
    assert.deepEqual(counted.hits.map((h) => [h.id, h.score]), iterated.hits.map((h) => [h.id, 1]));
    assert.equal(counted.maxScore, visible.size ? 1 : -Infinity);
  }
  const byK = ids(si, { sort: [{ k: 'asc' }, { n: 'desc' }] });
  const want = [...visible].sort(([, a], [, b]) => (a.k < b.k ? -1 : a.k > b.k ? 1 : b.n - a.n)).map(([id]) => id);
  assert.deepEqual(byK.map((id) => [visible.get(id)!.k, visible.get(id)!.n]), want.map((id) => [visible.get(id)!.k, visible.get(id)!.n]));
  const luceneDocs = [...visible.values()].reduce((a, d) => a + 1 + d.kids.length, 0);
  const st = si.index.stats();
  assert.equal(st.docs, luceneDocs);
  assert.equal(st.roots, visible.size);
}

/** Scores equal those of a fresh index holding exactly the visible docs (statistics add up across segments). */
async function checkScores(si: ScratchIndex, visible: Map<string, Doc>): Promise<void> {
  const fresh = new ScratchIndex();
  try {
    for (const [id, d] of visible) fresh.add(id, d as unknown as Record<string, unknown>, mapping);
    fresh.index.refresh();
    const q = { query: { match: { f: 'red blue' } } };
    const score = (x: ScratchIndex): Map<string, number> => new Map(search(x, q).hits.map((h) => [h.id, h.score]));
    assert.deepEqual(score(si), score(fresh));
  } finally {
    await fresh.close();
  }
}

test('statistics show a running merge\'s inputs while it runs, then its totals', async () => {
  // Read as the merge starts writing: the write yields to the event loop only after some milliseconds of work,
  // so looking between yields could miss a short merge, or a loop bounded by a yield count could give up first.
  const seen: IndexStats['merges'][] = [];
  const si = new ScratchIndex({}, { onMergeWriting: () => seen.push(si.index.stats().merges) });
  try {
    for (const seg of ['a', 'b', 'c']) {
      for (let i = 0; i < 400; i++) si.add(`${seg}${i}`, { f: `red ${'y'.repeat(i % 50)}`, k: seg, n: i, kids: [] }, mapping);
      si.index.refresh();
      await si.flush();
    }
    const inputs = si.index.segments();
    const inputDocs = inputs.reduce((a, s) => a + s.docs + s.deleted, 0);
    assert.equal(inputs.length, 3);
    await si.index.forceMerge(1, false);
    assert.equal(seen.length, 1, 'one merge wrote');
    assert.deepEqual([seen[0].current, seen[0].currentDocs], [1, inputDocs]);
    assert.ok(seen[0].currentBytes > 0);
    const done = si.index.stats();
    assert.deepEqual([done.merges.current, done.merges.currentDocs, done.merges.currentBytes, done.merges.total, done.merges.totalDocs], [0, 0, 0, 1, inputDocs]);
    assert.equal(done.merges.totalBytes, seen[0].currentBytes);
    assert.deepEqual([done.refreshes, done.flushes], [3, 3]);
    assert.ok(Number.isInteger(done.refreshMs) && Number.isInteger(done.flushMs) && done.refreshMs >= 0 && done.flushMs >= 0);
  } finally {
    await si.close();
  }
});
