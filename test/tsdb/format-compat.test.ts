/**
 * Blocks are Prometheus blocks: the bytes of a small generated block (magic numbers, versions, section CRCs,
 * series alignment, chunk refs), the real promtool reading Tessera's blocks and Tessera reading promtool's,
 * the checked-in layout-1 block (test/fixtures/format/tsdb-v1) converted on first open, and damaged files
 * refused with the file and offset named.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MATCH_EQUAL, MATCH_REGEXP, newMatcher } from '../../src/engine/tsdb/api.ts';
import { listBlockDirs, openBlock } from '../../src/engine/tsdb/block.ts';
import { encodeChunks, writeBlockDir, type BlockSeries } from '../../src/engine/tsdb/block-writer.ts';
import { labelsFromRecord } from '../../src/engine/tsdb/labels.ts';
import { MultiSourceQuerier, fetchSeries } from '../../src/engine/tsdb/querier.ts';
import { crc32c } from '../../src/engine/codec/crc32c.ts';
import { CorruptionError, FormatVersionError } from '../../src/engine/errors.ts';
import { tempDir } from './support/db.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/format/tsdb-v1/01M80FXM1F1WKYG5HD13RX60RA', import.meta.url));
const F = new Float64Array(1), U = new Uint32Array(F.buffer);
const T0 = 1_704_067_200_000;
const promtool = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));
const noPromtool = promtool ? false : 'promtool not installed (Debian package prometheus): the round trips with the real tool are skipped';

/** Two series over 4 minutes at 15 s, the second with a NaN and a stale marker. */
function sampleSeries(): BlockSeries[] {
  const mk = (ls: Record<string, string>, f: (i: number) => number): BlockSeries => {
    const n = 17, t = new Float64Array(n), v = new Float64Array(n);
    for (let i = 0; i < n; i++) { t[i] = T0 + i * 15_000; v[i] = f(i); }
    return { labels: labelsFromRecord(ls), chunks: encodeChunks(t, v, 0, n) };
  };
  return [
    mk({ __name__: 'up', instance: 'a:9100', job: 'node' }, () => 1),
    mk({ __name__: 'x_total', instance: 'a:9100', job: 'node', 'ünï': 'cödé' }, (i) => i * 1.5),
  ];
}

test('a written block has Prometheus\'s bytes: magics, versions, section CRCs, 16-byte series refs', async () => {
  const { dir, cleanup } = tempDir('tsdb-format-');
  try {
    const id = await writeBlockDir(dir, sampleSeries(), { minTime: T0, maxTime: T0 + 240_001, level: 1 }, T0);
    const bdir = path.join(dir, id);
    const chunks = readFileSync(path.join(bdir, 'chunks', '000001'));
    assert.equal(chunks.readUInt32BE(0), 0x85bd40dd);
    assert.deepEqual([...chunks.subarray(4, 8)], [1, 0, 0, 0]);
    const idx = readFileSync(path.join(bdir, 'index'));
    assert.equal(idx.readUInt32BE(0), 0xbaaad700);
    assert.equal(idx[4], 2);
    const toc = idx.subarray(idx.length - 52);
    assert.equal(toc.readUInt32BE(48), crc32c(toc.subarray(0, 48)), 'TOC CRC32C');
    const at = (i: number): number => toc.readUInt32BE(i * 8) * 2 ** 32 + toc.readUInt32BE(i * 8 + 4);
    assert.equal(at(0), 5, 'symbol table right after the header');
    const symLen = idx.readUInt32BE(5);
    assert.equal(idx.readUInt32BE(5 + 4 + symLen), crc32c(idx.subarray(9, 9 + symLen)), 'symbol table CRC32C');
    assert.equal(idx.readUInt32BE(9), 9, 'nine distinct symbols');
    // The first series starts at the first 16-byte boundary after the symbol table; its chunk ref is file 0, offset 8.
    const first = Math.ceil(at(1) / 16) * 16;
    const len = idx[first];
    assert.equal(idx.readUInt32BE(first + 1 + len), crc32c(idx.subarray(first + 1, first + 1 + len)), 'series CRC32C');
    const postingsTable = at(5);
    const ptLen = idx.readUInt32BE(postingsTable);
    assert.equal(idx.readUInt32BE(postingsTable + 4 + ptLen), crc32c(idx.subarray(postingsTable + 4, postingsTable + 4 + ptLen)));
    const tomb = readFileSync(path.join(bdir, 'tombstones'));
    assert.deepEqual([...tomb], [0x01, 0x30, 0xba, 0x30, 1, 0, 0, 0, 0], 'empty tombstones: magic, version, CRC of nothing');
    const meta = JSON.parse(readFileSync(path.join(bdir, 'meta.json'), 'utf8'));
    assert.deepEqual({ ulid: meta.ulid, minTime: meta.minTime, maxTime: meta.maxTime, stats: meta.stats, version: meta.version },
      { ulid: id, minTime: T0, maxTime: T0 + 240_001, stats: { numSamples: 34, numSeries: 2, numChunks: 2 }, version: 1 });

    const b = await openBlock(bdir);
    const q = new MultiSourceQuerier([b], -Infinity, Infinity);
    const got = fetchSeries(q, [newMatcher(MATCH_REGEXP, '__name__', '.+')], -Infinity, Infinity);
    assert.deepEqual(got.map((s) => s.labels.map((l) => `${l.name}=${l.value}`).join(',')), ['__name__=up,instance=a:9100,job=node', '__name__=x_total,instance=a:9100,job=node,ünï=cödé']);
    assert.deepEqual([...got[1].v.slice(0, 3)], [0, 1.5, 3]);
    assert.deepEqual(q.labelValues('ünï', []), ['cödé']);
    await b.addTombstones([newMatcher(MATCH_EQUAL, '__name__', 'up')], T0, T0 + 30_000);
    b.close();
    const reopened = await openBlock(bdir);
    const up = fetchSeries(new MultiSourceQuerier([reopened], -Infinity, Infinity), [newMatcher(MATCH_EQUAL, '__name__', 'up')], -Infinity, Infinity)[0];
    assert.equal(up.t[0], T0 + 45_000, 'tombstones survive a reopen');
    reopened.close();
  } finally { cleanup(); }
});

test('promtool reads Tessera\'s blocks: tsdb list, analyze and dump', { skip: noPromtool }, async () => {
  const { dir, cleanup } = tempDir('tsdb-promtool-');
  try {
    const id = await writeBlockDir(dir, sampleSeries(), { minTime: T0, maxTime: T0 + 240_001, level: 1 }, T0);
    const list = execFileSync(promtool!, ['tsdb', 'list', dir], { encoding: 'utf8' });
    assert.match(list, new RegExp(`${id}\\s+${T0}\\s+${T0 + 240_001}\\s+\\S+\\s+34\\s+2\\s+2`));
    const analyze = execFileSync(promtool!, ['tsdb', 'analyze', dir, id], { encoding: 'utf8' });
    assert.match(analyze, /\nSeries: 2\n/);
    assert.match(analyze, /\nLabel names: 4\n/);
    assert.match(analyze, /\nPostings \(unique label pairs\): 5\n/);
    assert.match(analyze, /\nPostings entries \(total label pairs\): 7\n/);
    mkdirSync(path.join(dir, 'wal')); // dump opens the directory as a read-only TSDB, which needs a (here empty) WAL
    const dump = execFileSync(promtool!, ['tsdb', 'dump', dir], { encoding: 'utf8' }).trim().split('\n');
    assert.equal(dump.length, 34);
    assert.ok(dump.includes(`{__name__="x_total", instance="a:9100", job="node", ünï="cödé"} 3 ${T0 + 30_000}`), dump.slice(17, 20).join('\n'));
  } finally { cleanup(); }
});

test('Tessera reads blocks written by promtool tsdb create-blocks-from openmetrics', { skip: noPromtool }, async () => {
  const { dir, cleanup } = tempDir('tsdb-promtool-');
  try {
    const lines = ['# HELP req Requests.', '# TYPE req counter'];
    for (let i = 0; i < 300; i++) lines.push(`req_total{code="200",path="/a"} ${i * 2} ${T0 / 1000 + i * 30}`, `req_total{code="500",path="/a"} ${i % 7} ${T0 / 1000 + i * 30}`);
    lines.push('# EOF');
    const om = path.join(dir, 'in.om');
    writeFileSync(om, lines.join('\n') + '\n');
    const out = path.join(dir, 'blocks');
    execFileSync(promtool!, ['tsdb', 'create-blocks-from', 'openmetrics', om, out], { encoding: 'utf8' });
    const ids = readdirSync(out).filter((n) => /^[0-9A-Z]{26}$/.test(n));
    assert.ok(ids.length >= 1);
    const blocks = await Promise.all(ids.map((id) => openBlock(path.join(out, id))));
    const q = new MultiSourceQuerier(blocks, -Infinity, Infinity);
    const s = fetchSeries(q, [newMatcher(MATCH_EQUAL, 'code', '500')], -Infinity, Infinity);
    assert.equal(s.length, 1);
    assert.equal(s[0].t.length, 300);
    assert.deepEqual([...s[0].v.slice(0, 9)], [0, 1, 2, 3, 4, 5, 6, 0, 1]);
    assert.equal(s[0].t[299], T0 + 299 * 30_000);
    assert.deepEqual(q.labelValues('code', []), ['200', '500']);
    for (const b of blocks) b.close();
  } finally { cleanup(); }
});

test('a layout-1 block (Tessera\'s own files) is converted to a Prometheus block on first open', async () => {
  const { dir, cleanup } = tempDir('tsdb-upgrade-');
  try {
    const copy = path.join(dir, path.basename(FIXTURE));
    cpSync(FIXTURE, copy, { recursive: true });
    const b = await openBlock(copy);
    assert.notEqual(b.dir, copy, 'a new block directory');
    assert.equal(existsSync(copy), false, 'the old directory is gone');
    assert.equal(readFileSync(path.join(b.dir, 'index')).readUInt32BE(0), 0xbaaad700);
    assert.equal(b.meta.minTime, T0);
    // The tombstoned sample is dropped by the conversion, so the new block has none.
    assert.deepEqual(b.meta.stats, { numSamples: 132, numSeries: 2, numChunks: 3 });
    const q = new MultiSourceQuerier([b], -Infinity, Infinity);
    const total = fetchSeries(q, [newMatcher(MATCH_EQUAL, '__name__', 'fixture_total')], -Infinity, Infinity)[0];
    assert.equal(total.t.length, 130);
    assert.equal(total.v[100], 150);
    F[0] = total.v[129];
    assert.deepEqual([U[1], U[0]], [0x7ff00000, 2], 'the stale marker\'s NaN payload survives');
    const gauge = fetchSeries(q, [newMatcher(MATCH_EQUAL, 'job', 'b')], -Infinity, Infinity)[0];
    assert.deepEqual([...gauge.t], [T0, T0 + 30_000]);
    assert.deepEqual([...gauge.v], [1, -Infinity]);
    assert.deepEqual(q.labelValues('job', []), ['a', 'b']);
    b.close();
  } finally { cleanup(); }
});

test('damaged index, chunk magic, chunk data, tombstones and an unknown meta version are refused, naming the file', async () => {
  const { dir, cleanup } = tempDir('tsdb-compat-');
  try {
    const src = path.join(dir, 'src');
    const id = await writeBlockDir(dir, sampleSeries(), { minTime: T0, maxTime: T0 + 240_001, level: 1 }, T0);
    cpSync(path.join(dir, id), src, { recursive: true });
    const flip = (file: string, at: (b: Buffer) => number): void => { const b = readFileSync(file); b[at(b)] ^= 0xff; writeFileSync(file, b); };
    const cases: [string, (d: string) => void, (e: unknown) => boolean][] = [
      ['index symbols', (d) => flip(path.join(d, 'index'), () => 12), (e) => e instanceof CorruptionError && /index/.test(e.file) && /symbol table checksum/.test(e.message)],
      ['index toc', (d) => flip(path.join(d, 'index'), (b) => b.length - 10), (e) => e instanceof CorruptionError && /TOC checksum/.test(e.message)],
      ['chunks', (d) => flip(path.join(d, 'chunks', '000001'), () => 0), (e) => e instanceof CorruptionError && /000001/.test(e.file) && e.offset === 0],
      ['tombstones', (d) => flip(path.join(d, 'tombstones'), () => 0), (e) => e instanceof CorruptionError && /tombstones/.test(e.file)],
      ['meta', (d) => { const p = path.join(d, 'meta.json'); writeFileSync(p, readFileSync(p, 'utf8').replace('"version": 1', '"version": 9')); },
        (e) => e instanceof FormatVersionError],
    ];
    for (const [name, damage, check] of cases) {
      const d = path.join(dir, name.replace(' ', '-'));
      cpSync(src, d, { recursive: true });
      damage(d);
      await assert.rejects(openBlock(d), check, name);
    }
    // A damaged series entry is found when the series is read.
    const d = path.join(dir, 'series');
    cpSync(src, d, { recursive: true });
    const idx = readFileSync(path.join(d, 'index'));
    const toc = idx.subarray(idx.length - 52);
    const first = Math.ceil((toc.readUInt32BE(8) * 2 ** 32 + toc.readUInt32BE(12)) / 16) * 16;
    flip(path.join(d, 'index'), () => first + 3);
    const b = await openBlock(d);
    assert.throws(() => fetchSeries(new MultiSourceQuerier([b], -Infinity, Infinity), [newMatcher(MATCH_EQUAL, '__name__', 'up')], -Infinity, Infinity),
      (e: unknown) => e instanceof CorruptionError && e.offset === first && /series checksum/.test(e.message));
    b.close();
    // A flipped byte inside a chunk's samples fails its CRC when the chunk is read: never wrong values.
    const c = path.join(dir, 'chunk-data');
    cpSync(src, c, { recursive: true });
    flip(path.join(c, 'chunks', '000001'), () => 8 + 5);
    const cb = await openBlock(c);
    assert.throws(() => fetchSeries(new MultiSourceQuerier([cb], -Infinity, Infinity), [newMatcher(MATCH_EQUAL, '__name__', 'up')], -Infinity, Infinity),
      (e: unknown) => e instanceof CorruptionError && /000001/.test(e.file) && e.offset === 8 && /chunk checksum mismatch/.test(e.message));
    cb.close();
  } finally { cleanup(); }
});

test('a block directory without meta.json is refused, naming it; .tmp and .deleted directories are not blocks', async () => {
  const { dir, cleanup } = tempDir('tsdb-compat-');
  try {
    const id = await writeBlockDir(dir, sampleSeries(), { minTime: T0, maxTime: T0 + 240_001, level: 1 }, T0);
    cpSync(path.join(dir, id), path.join(dir, `${id}.tmp`), { recursive: true });
    cpSync(path.join(dir, id), path.join(dir, `${id}.deleted`), { recursive: true });
    assert.deepEqual(await listBlockDirs([dir]), [path.join(dir, id)]);
    rmSync(path.join(dir, id, 'meta.json'));
    await assert.rejects(listBlockDirs([dir]), (e: unknown) => e instanceof CorruptionError && e.file === path.join(dir, id, 'meta.json') && /no meta\.json/.test(e.message));
  } finally { cleanup(); }
});
