/**
 * What the fetch board saves the shard that finishes its query last: the two shards of a kept load-test index
 * (`documents-scale.ts N --keep DIR`, then `DIR/es/indices/<uuid>`) searched one after the other in this
 * process, as the second of two parallel shard workers sees the first. With the board, the second shard
 * fetches only its hits that can be on the merged page (engine/search/fetch-board.ts); without, all of its top
 * hits. The three query kinds of loadtest/documents-scale.ts that fetch hits (2-term AND, 2-term OR, bool +
 * one-day range sorted by date), words from the same Zipf vocabulary (ranks 20–2,000), another seed.
 *
 *   node --import tsx bench/search/fetch-board.bench.ts INDEX_DIR [queries per kind = 400]
 *
 * Prints per kind and mode: median CPU µs (user + system) of the second shard's search (query and fetch), and
 * how many of its hits it fetched per query. The cache starts cold; the first WARMUP queries are not counted.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlockCache, ShardIndex } from '../../src/engine/indexing/index.ts';
import { parseSearchBody } from '../../src/engine/search/search-request.ts';
import { createFetchBoardBuffer, FetchBoard, FetchBoardSlots, searchShard } from '../../src/engine/search/index.ts';
import { mulberry32 } from '../support/mulberry32.ts';
import { LOG_T0, logVocabulary } from '../../loadtest/support/log-docs.ts';

const src = process.argv[2];
if (!src) { console.error('usage: fetch-board.bench.ts INDEX_DIR [queries]'); process.exit(2); }
const PER_KIND = Number(process.argv[3] ?? 400);
const WARMUP = 100;

// Open copies: opening may replay or clean up files, and the kept directory stays reusable.
const dir = mkdtempSync(join(tmpdir(), 'fetch-board-'));
cpSync(src, dir, { recursive: true });
const mapping = { properties: { title: { type: 'text' }, body: { type: 'text' }, level: { type: 'keyword' }, host: { type: 'keyword' }, bytes: { type: 'long' }, ts: { type: 'date' } } };
const shards = [0, 1].map((s) => ShardIndex.open({ dir: join(dir, String(s), 'index'), indexSettings: {}, cache: new BlockCache(96 << 20), memory: null, autoMerge: false }));
const readers = shards.map((x) => x.reader(mapping as never));
const slots = new FetchBoardSlots(new FetchBoard(createFetchBoardBuffer()));

const { words } = logVocabulary();
function kinds(r: () => number): Record<string, () => Record<string, unknown>> {
  const w = () => words[20 + Math.floor(r() * 1980)];
  return {
    and: () => ({ query: { match: { body: { query: `${w()} ${w()}`, operator: 'and' } } } }),
    or: () => ({ query: { match: { body: `${w()} ${w()}` } } }),
    range: () => {
      const from = LOG_T0 + Math.floor(r() * 29) * 86_400_000;
      return { query: { bool: { must: [{ match: { body: w() } }], filter: [{ range: { ts: { gte: new Date(from).toISOString(), lt: new Date(from + 86_400_000).toISOString() } } }] } }, sort: [{ ts: 'desc' }] };
    },
  };
}

/** CPU time rather than wall time: on a shared machine, time spent descheduled is not the query's. */
function cpuUs(): number { const u = process.cpuUsage(); return u.user + u.system; }
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];

for (const kind of ['and', 'or', 'range']) {
  for (const withBoard of [false, true, false, true]) {
    // The same queries in each mode.
    const make = kinds(mulberry32(11))[kind];
    const us: number[] = [];
    let fetched = 0;
    for (let i = 0; i < PER_KIND + WARMUP; i++) {
      const req = parseSearchBody(make());
      const lent = withBoard ? slots.borrow()! : null;
      const opts = (shard: number) => ({ index: 'logs', nowMs: Date.now(), shardCount: 2,
        board: lent ? { board: slots.board, seat: { slot: lent.slot, epoch: lent.epoch, shard, shardCount: 2 } } : undefined });
      searchShard(readers[0], req, opts(0));
      const t0 = cpuUs();
      const second = searchShard(readers[1], req, opts(1));
      const t1 = cpuUs();
      if (lent) slots.giveBack(lent.slot);
      if (i < WARMUP) continue;
      us.push(t1 - t0);
      for (const h of second.hits) if (!h.unfetched) fetched++;
    }
    console.log(`${kind.padEnd(6)} ${withBoard ? 'board   ' : 'no board'} second shard median ${median(us).toFixed(0)} µs, ${(fetched / PER_KIND).toFixed(1)} hits fetched per query`);
  }
}
for (const s of shards) await s.close();
rmSync(dir, { recursive: true, force: true });
