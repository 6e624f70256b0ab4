/**
 * `readSelection` against the object path it replaces on the query path (`MultiSourceQuerier.collect`, each
 * series read through the merging cursor): random sources — some listing series in label order as blocks do,
 * some in creation order as the head does —, series spread over several sources, chunks that overlap, deletions
 * and `[mint, maxt]` windows; one or two TSDBs per worker. And over real blocks, whose reads share windows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Labels } from './api.ts';
import { MATCH_EQUAL, newMatcher, VAL_FLOAT } from './api.ts';
import type { ChunkMeta, Interval, SeriesSource } from './chunk-meta.ts';
import { bitmapOf } from '../codec/roaring.ts';
import { compareLabels } from './labels.ts';
import { unpackSelect } from './packed-series.ts';
import type { PostingsIndex } from './postings.ts';
import { MultiSourceQuerier } from './querier.ts';
import { ReadStop } from '../read-stop.ts';
import { readSelection } from './select-reader.ts';
import { XorAppender, xorCount } from './xor-chunk.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Block, openBlock } from './block.ts';
import { type BlockSeries, encodeChunks, writeBlockDir } from './block-writer.ts';

const NAMES = ['a', 'b', 'c', 'd', 'e'];
const labelsOf = (name: string): Labels => [{ name: '__name__', value: 'm' }, { name: 'i', value: name }];

interface SourceSpec { series: { name: string; chunks: number[][]; del: Interval | null }[]; labelOrder: boolean; base: number }

/** A source over chunks held in memory; refs are positions in `series` (label order only when `labelOrder`). */
function sourceOf(spec: SourceSpec): SeriesSource {
  const list = spec.labelOrder ? [...spec.series].sort((x, y) => compareLabels(labelsOf(x.name), labelsOf(y.name))) : spec.series;
  const chunks: ChunkMeta[][] = list.map((s) => s.chunks.map((ts) => {
    const a = new XorAppender();
    for (const t of ts) a.append(t, t * 10 + spec.base);
    return { mint: ts[0], maxt: ts[ts.length - 1], bytes: a.bytes().slice() };
  }));
  const all = [...Array(list.length).keys()];
  return {
    minTime: Math.min(...chunks.flat().map((c) => c.mint)), maxTime: Math.max(...chunks.flat().map((c) => c.maxt)),
    index: { select: () => bitmapOf(all) } as unknown as PostingsIndex,
    refsInLabelOrder: spec.labelOrder,
    labelsOf: (ref) => labelsOf(list[ref].name),
    chunksOf: (ref, mint, maxt, out) => { for (const c of chunks[ref]) if (c.maxt >= mint && c.mint <= maxt) out.push(c); },
    deletedOf: (ref) => (list[ref].del === null ? undefined : [list[ref].del!]),
  };
}

const arbTimes = fc.uniqueArray(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 25 }).map((a) => a.sort((x, y) => x - y));
const arbSeries = fc.record({
  name: fc.constantFrom(...NAMES),
  // Chained (one chunk after another, the common case) or each at random (overlapping).
  chunks: fc.tuple(fc.array(arbTimes, { minLength: 1, maxLength: 3 }), fc.boolean()).map(([lists, chained]) => {
    if (!chained) return lists;
    let off = 0;
    return lists.map((ts) => { const at = ts.map((t) => t + off); off = at[at.length - 1] + 1; return at; });
  }),
  del: fc.option(fc.tuple(fc.integer({ min: 0, max: 800 }), fc.integer({ min: 0, max: 80 })).map(([a, w]): Interval => [a, a + w]), { freq: 4 }),
});
const arbSource = fc.record({
  series: fc.uniqueArray(arbSeries, { selector: (s) => s.name, minLength: 1, maxLength: 5 }),
  labelOrder: fc.boolean(),
  base: fc.integer({ min: 1, max: 9 }),
});
const ms = [newMatcher(MATCH_EQUAL, '__name__', 'm')];

/** The reference: each TSDB's series as the querier lists them, read through the merging cursor. */
function expected(tsdbs: SeriesSource[][], mint: number, maxt: number): { labels: Labels; t: number[]; v: number[] }[] {
  const out = [];
  for (const sources of tsdbs) {
    for (const s of new MultiSourceQuerier(sources, mint, maxt).collect(ms, mint, maxt)) {
      const t: number[] = [], v: number[] = [];
      const cur = s.iterator(null);
      while (cur.next() === VAL_FLOAT) { t.push(cur.t); v.push(cur.v); }
      if (t.length) out.push({ labels: s.labels, t, v });
    }
  }
  return out;
}

test('readSelection packs what the merging cursor reads, series in label order, only samples in range', () => {
  fc.assert(fc.property(fc.array(fc.array(arbSource, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 2 }), fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 900 }), (specs, mint, span) => {
    const maxt = mint + span;
    const tsdbs = specs.map((list) => list.map(sourceOf));
    const packed = readSelection(tsdbs.map((sources) => new MultiSourceQuerier(sources, mint, maxt)), ms, mint, maxt);
    const got = unpackSelect(packed).map((s) => ({ labels: s.labels, t: [...s.t], v: [...s.v] }));
    const want = expected(tsdbs, mint, maxt);
    assert.deepEqual(got, want);
    // Chunks reaching past [mint, maxt] are cut by the worker, not left to the reader.
    let sent = 0;
    for (let j = 0; j < packed.bStart.length; j++) sent += xorCount(packed.data.subarray(packed.bStart[j], packed.bEnd[j]));
    assert.equal(sent, want.reduce((n, s) => n + s.t.length, 0));
    if (specs.length === 1) assert.equal(packed.sorted, true);
  }), { numRuns: 400, seed: 11 });
});

test('readSelection stops when its ReadStop says so, even with nothing selected', () => {
  const words = new Int32Array(2);
  Atomics.store(words, 1, 1); // this read's own word: canceled
  assert.throws(() => readSelection([], ms, 0, 10, new ReadStop(Infinity, words, 1)), { name: 'QueryCanceledError' });
  const spec: SourceSpec = { series: NAMES.map((name) => ({ name, chunks: [[1, 2, 3]], del: null })), labelOrder: true, base: 1 };
  assert.throws(() => readSelection([new MultiSourceQuerier([sourceOf(spec)], 0, 10)], ms, 0, 10, new ReadStop(Infinity, words, 1)), { name: 'QueryCanceledError' });
  assert.equal(unpackSelect(readSelection([new MultiSourceQuerier([sourceOf(spec)], 0, 10)], ms, 0, 10)).length, NAMES.length);
});

test('readSelection over blocks just opened, whose indexes and chunk files span many read windows, reads what the cursor reads', async () => {
  // Shared read windows (`readingThroughSharedWindows`): a read that refills one while an earlier view of it is
  // still in use — a series entry whose block decodes its symbol table at that moment — would read other bytes.
  const dir = mkdtempSync(path.join(tmpdir(), 'select-blocks-'));
  const H = 3_600_000;
  try {
    const dirs: string[] = [];
    for (let b = 0; b < 3; b++) {
      const series: BlockSeries[] = [];
      for (let i = 0; i < 1500; i++) {
        const labels: Labels = [{ name: '__name__', value: 'm' }, { name: 'i', value: `${String(i).padStart(5, '0')}-${'v'.repeat(40)}-${b}` }];
        const ts = new Float64Array(240), vs = new Float64Array(240);
        for (let k = 0; k < 240; k++) { ts[k] = b * 2 * H + k * 30_000; vs[k] = Math.sin(i + k) * 1e6; }
        series.push({ labels, chunks: encodeChunks(ts, vs, 0, 240) });
      }
      series.sort((x, y) => compareLabels(x.labels, y.labels));
      dirs.push(path.join(dir, await writeBlockDir(dir, series, { minTime: b * 2 * H, maxTime: (b + 1) * 2 * H, level: 1 })));
    }
    const open = async (): Promise<Block[]> => Promise.all(dirs.map((d) => openBlock(d)));
    const fresh = await open();
    const got = unpackSelect(readSelection([new MultiSourceQuerier(fresh, 0, 6 * H)], ms, 0, 6 * H)).map((s) => ({ labels: s.labels, t: [...s.t], v: [...s.v] }));
    const reference = await open();
    assert.equal(got.length, 3 * 1500);
    assert.deepEqual(got, expected([reference], 0, 6 * H));
    for (const b of [...fresh, ...reference]) b.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
