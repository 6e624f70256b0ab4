/**
 * The querier's cursor against a naive model: random chunk layouts (including chunks that overlap, as a
 * backfilled block over the head does), random tombstones and random [mint, maxt] windows, read with next()
 * and with seek(). Merged result = every sample outside the deletions, first source winning on equal
 * timestamps, ascending.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { VAL_FLOAT, VAL_NONE } from './api.ts';
import type { ChunkMeta, Interval } from './chunk-meta.ts';
import { ChunksCursor, MultiSourceQuerier, type MergedSeries } from './querier.ts';
import { MATCH_EQUAL, newMatcher } from './api.ts';
import { openBlock } from './block.ts';
import { writeBlockDir, type BlockSeries } from './block-writer.ts';
import { labelsFromRecord } from './labels.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XorAppender } from './xor-chunk.ts';

function chunk(ts: number[], base: number): ChunkMeta {
  const a = new XorAppender();
  for (const t of ts) a.append(t, t * 10 + base);
  return { mint: ts[0], maxt: ts[ts.length - 1], bytes: a.bytes().slice() };
}

const arbChunks = fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 500 }), { minLength: 1, maxLength: 30 }).map((a) => a.sort((x, y) => x - y)), { minLength: 1, maxLength: 5 });
const arbDel = fc.array(fc.tuple(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 60 })).map(([a, w]) => [a, a + w] as Interval), { maxLength: 2 });

test('ChunksCursor matches a naive merge (next and seek)', () => {
  fc.assert(fc.property(arbChunks, arbDel, fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 600 }), fc.integer({ min: 0, max: 520 }),
    (lists, del, mint, span, seekTo) => {
      const maxt = mint + span;
      const refs = lists.map((ts, i) => ({ c: chunk(ts, i / 10), del: i % 2 === 0 ? del : undefined }));
      const sorted = refs.map((r, i) => ({ r, i })).sort((a, b) => a.r.c.mint - b.r.c.mint);
      const want = new Map<number, number>();
      for (const { r, i } of sorted) for (const t of lists[i]) {
        const deleted = r.del?.some((iv) => t >= iv[0] && t <= iv[1]);
        if (!deleted && t >= mint && t <= maxt && !want.has(t)) want.set(t, t * 10 + i / 10);
      }
      const expect = [...want].sort((a, b) => a[0] - b[0]);
      const cur = new ChunksCursor(sorted.map((x) => x.r), mint, maxt);
      const got: [number, number][] = [];
      while (cur.next() === VAL_FLOAT) got.push([cur.t, cur.v]);
      assert.equal(cur.next(), VAL_NONE);
      assert.deepEqual(got, expect);
      const cur2 = new ChunksCursor(sorted.map((x) => x.r), mint, maxt);
      const first = expect.find((e) => e[0] >= seekTo);
      assert.equal(cur2.seek(seekTo), first ? VAL_FLOAT : VAL_NONE);
      if (first) assert.equal(cur2.t, first[0]);
    }), { numRuns: 300, seed: 42 });
});

/**
 * `collect` over two blocks holding the same series in the same order, as Prometheus writes them: by UTF-8
 * bytes. With only strings below U+D800 that is `compareLabels`'s order and the lists merge as they are; with
 * U+FF01 and a surrogate pair (U+1F600 sorts after U+FF01 in UTF-8, before it in UTF-16) they do not, and each
 * label set must still come out once, with the chunks of both blocks, in `compareLabels` order.
 */
test('collect merges block lists whose ref order is or is not compareLabels order', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'querier-order-'));
  try {
    for (const values of [['a', 'b', 'c'], ['\uff01', '\u{1F600}']]) {
      const series = (t0: number): BlockSeries[] => values.map((v) => ({ labels: labelsFromRecord({ __name__: 'm', v }), chunks: [chunk([t0, t0 + 1], 0)] }));
      const blocks = [];
      for (const t0 of [0, 100]) blocks.push(await openBlock(path.join(dir, await writeBlockDir(dir, series(t0), { minTime: t0, maxTime: t0 + 99, level: 1 }))));
      assert.equal(blocks[0].refsInLabelOrder, values[0] === 'a');
      const got = new MultiSourceQuerier(blocks, 0, 199).collect([newMatcher(MATCH_EQUAL, '__name__', 'm')], 0, 199);
      const want = [...values].sort((x, y) => (x < y ? -1 : 1));
      assert.deepEqual(got.map((s) => s.labels.find((l) => l.name === 'v')!.value), want);
      for (const s of got) assert.deepEqual(s.chunks.map((r) => r.c.mint), [0, 100]);
      for (const b of blocks) b.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('stream gives the series collect gives, with the same chunks, whatever the sources\' ref order', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'querier-stream-'));
  try {
    for (const values of [['a', 'b', 'c', 'd'], ['\uff01', '\u{1F600}', 'x']]) {
      // Each block holds some of the series (a series may be missing from any); given newest first, so a
      // series' chunks come out of time order and must be put back in it.
      const blocks = [];
      for (const [t0, keep] of [[200, [0, 2]], [100, [1, 2, 3]], [0, [0, 1]]] as const) {
        const series: BlockSeries[] = values.filter((_, i) => (keep as readonly number[]).includes(i))
          .map((v) => ({ labels: labelsFromRecord({ __name__: 'm', v }), chunks: [chunk([t0, t0 + 1], 0)] }))
          .sort((x, y) => (x.labels[1].value < y.labels[1].value ? -1 : 1));
        blocks.push(await openBlock(path.join(dir, await writeBlockDir(dir, series, { minTime: t0, maxTime: t0 + 99, level: 1 }))));
      }
      const q = new MultiSourceQuerier(blocks, 0, 299);
      const ms = [newMatcher(MATCH_EQUAL, '__name__', 'm')];
      const shape = (list: Iterable<MergedSeries>) =>
        [...list].map((s) => [s.labels.map((l) => l.value).join(','), s.chunks.map((r) => r.c.mint).join(',')]);
      const want = shape(q.collect(ms, 0, 299));
      assert.equal(want.length, values.length);
      assert.deepEqual(shape(q.stream(ms, 0, 299)), want);
      assert.deepEqual(shape(q.stream(ms, 150, 299)), shape(q.collect(ms, 150, 299)));
      for (const b of blocks) b.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
