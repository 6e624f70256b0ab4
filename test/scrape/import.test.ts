/**
 * The OpenMetrics backfill: promtool's timestamp truncation, 2 h-aligned blocks with maxTime = last + 1,
 * refusals (no # EOF, missing timestamp, out of order, duplicates), and the CLI's exit codes. The block
 * writer is replaced by a recorder here; writing real blocks is covered end to end by the server test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTsdbCli } from '../../src/cli/tsdb-import.ts';
import { formatSeries } from '../../src/engine/exposition/exposition.ts';
import type { FetchedSeries } from '../../src/engine/tsdb/api.ts';

const CASES = new URL('./cases/import/', import.meta.url).pathname;

async function run(args: string[]) {
  const blocks: { dir: string; mint: number; maxt: number; series: Record<string, [number, number][]> }[] = [];
  let out = '', err = '';
  const code = await runTsdbCli(args, {
    writeBlock: async (dir: string, series: FetchedSeries[], mint: number, maxt: number) => {
      const rec: Record<string, [number, number][]> = {};
      for (const s of series) rec[formatSeries(s.labels)] = [...s.t].map((t, i) => [t, s.v[i]]);
      blocks.push({ dir, mint, maxt, series: rec });
      return join(dir, `BLOCK${blocks.length}`);
    },
    stdout: (s) => { out += s; }, stderr: (s) => { err += s; },
  });
  return { code, blocks, out, err };
}

test('import cuts 2h-aligned blocks, truncating second timestamps to ms', async () => {
  const r = await run(['tsdb', 'create-blocks-from', 'openmetrics', join(CASES, 'basic.om'), '/tmp/out']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.blocks.length, 2);
  const [b0, b1] = r.blocks;
  assert.equal(b0.dir, '/tmp/out');
  assert.equal(b0.mint, 1000, 'minTime is the first sample, as promtool writes it');
  assert.equal(b0.maxt, 300_001, 'maxTime is the last sample + 1 ms');
  assert.deepEqual(b0.series['http_requests_total{code="200"}'], [[1000, 1], [15_000, 2]], '1.001 s truncates to 1000 ms like promtool');
  assert.deepEqual(b0.series.temp.map(([t]) => t), [100_000, 200_000, 300_000]);
  assert.ok(Number.isNaN(b0.series.temp[1][1]));
  assert.equal(b0.series.temp[2][1], Infinity);
  assert.equal(b1.mint, 7_200_500);
  assert.equal(b1.maxt, 7_300_001);
  assert.deepEqual(b1.series['http_requests_total{code="200"}'], [[7_200_500, 3]]);
  assert.deepEqual(b1.series['http_requests_total{code="500"}'], [[7_300_000, 1]]);
  // promtool printed `4m59.001s` and `1m39.501s` for these two blocks.
  assert.match(r.out, /^BLOCK ULID\s+MIN TIME\s+MAX TIME\s+DURATION\s+NUM SAMPLES\s+NUM CHUNKS\s+NUM SERIES\s+SIZE\nBLOCK1\s+1000\s+300001\s+4m59\.001s\s+5\s+\?\s+2\s+\?\nBLOCK2\s+7200500\s+7300001\s+1m39\.501s\s+2\s+/);
});

// Messages and outcomes as the real promtool 2.42 gave them for the same inputs.
const bigBatch = Array.from({ length: 4999 }, (_, i) => `filler{i="${i}"} 1 ${i}`).join('\n');
const bad: [string, string, RegExp][] = [
  ['no eof', 'a 1 1\n', /^tessera: getting min and max timestamp: next: data does not end with # EOF\n$/],
  ['missing timestamp', 'a 1\n# EOF\n', /^tessera: getting min and max timestamp: expected timestamp for series got none\n$/],
  ['broken line', 'a{ 1 10\n# EOF\n', /getting min and max timestamp: next: expected label name.*\(line 1\)/],
  ['data after eof', 'a 1 10\n# EOF\na 2 20\n', /getting min and max timestamp: next: unexpected data after # EOF/],
  ['out of order across a commit (5000 samples)', `a 1 100\n${bigBatch}\na 2 50\n# EOF\n`, /add sample: out of order sample/],
  ['duplicate with another value across a commit', `a 1 100\n${bigBatch}\na 2 100\n# EOF\n`, /add sample: duplicate sample for timestamp/],
];

for (const [name, body, want] of bad) {
  test(`import refuses: ${name}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-import-'));
    try {
      writeFileSync(join(dir, 'in.om'), body);
      const r = await run(['create-blocks-from', 'openmetrics', join(dir, 'in.om'), dir]);
      assert.equal(r.code, 1);
      assert.match(r.err, want);
      assert.equal(r.blocks.length, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('import: within one commit batch, out-of-order and duplicate samples are dropped (first wins), as promtool does', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-import-'));
  try {
    // promtool 2.42 on these inputs: 1 sample at 10000 (a 2 @5 dropped); 1 sample (a 2 @10 dropped);
    // blocks 10000..10001 and 8000000..8000001 for the third.
    const cases: [string, number[][][]][] = [
      ['a 1 10\na 2 5\n# EOF\n', [[[10_000, 1]]]],
      ['a 1 10\na 2 10\n# EOF\n', [[[10_000, 1]]]],
      ['a 1 8000\na 1 8000\na 2 10\n# EOF\n', [[[10_000, 2]], [[8_000_000, 1]]]],
    ];
    for (const [body, want] of cases) {
      writeFileSync(join(dir, 'in.om'), body);
      const r = await run(['create-blocks-from', 'openmetrics', '--quiet', join(dir, 'in.om'), dir]);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, '');
      assert.deepEqual(r.blocks.map((b) => b.series.a), want, body);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('import: bad command lines exit 2', async () => {
  assert.equal((await run(['create-blocks-from', 'csv', 'x'])).code, 2);
  assert.equal((await run(['create-blocks-from', 'openmetrics'])).code, 2);
  assert.equal((await run(['create-blocks-from', 'openmetrics', 'a', 'b', 'c'])).code, 2);
});

test('import streams pieces: a file split across many pieces parses like one', async () => {
  const { readOpenMetrics } = await import('../../src/engine/backfill/backfill.ts');
  const dir = mkdtempSync(join(tmpdir(), 'tessera-import-'));
  try {
    const lines: string[] = [];
    for (let i = 0; i < 500; i++) lines.push(`m{i="${i % 7}"} ${i} ${i * 15}`);
    writeFileSync(join(dir, 'in.om'), lines.join('\n') + '\n# EOF\n');
    const small = await readOpenMetrics(join(dir, 'in.om'), 64);
    const big = await readOpenMetrics(join(dir, 'in.om'));
    assert.equal(small.samples, 500);
    assert.equal(small.series.length, 7);
    assert.deepEqual(small.series.map((s) => [...s.t.subarray(0, s.n)]), big.series.map((s) => [...s.t.subarray(0, s.n)]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('import writes real blocks that the TSDB block reader serves', async () => {
  const { openBlock, listBlockDirs } = await import('../../src/engine/tsdb/block.ts');
  const { MultiSourceQuerier, fetchSeries } = await import('../../src/engine/tsdb/querier.ts');
  const { newMatcher, MATCH_EQUAL } = await import('../../src/engine/tsdb/api.ts');
  const dir = mkdtempSync(join(tmpdir(), 'tessera-import-'));
  try {
    let err = '';
    const code = await runTsdbCli(['create-blocks-from', 'openmetrics', join(CASES, 'basic.om'), dir], { stdout: () => {}, stderr: (s) => { err += s; } });
    assert.equal(code, 0, err);
    const dirs = await listBlockDirs([dir]);
    assert.equal(dirs.length, 2);
    const blocks = await Promise.all(dirs.map(openBlock));
    assert.deepEqual(blocks.map((b) => [b.minTime, b.maxTime]).sort((a, b) => a[0] - b[0]), [[1000, 300_001], [7_200_500, 7_300_001]]);
    const q = new MultiSourceQuerier(blocks, 0, 10_000_000);
    const got = fetchSeries(q, [newMatcher(MATCH_EQUAL, '__name__', 'http_requests_total')], 0, 10_000_000);
    assert.deepEqual(got.map((s) => [formatSeries(s.labels), [...s.t], [...s.v]]), [
      ['http_requests_total{code="200"}', [1000, 15_000, 7_200_500], [1, 2, 3]],
      ['http_requests_total{code="500"}', [7_300_000], [1]],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
