/**
 * The fetch board's decisions against a model of the coordinator's merge: a hit is left unfetched only when
 * at least `from + size` hits sort before it there (never a page hit), and with every shard published and
 * plain keys it is fetched only when it is on the page. Seeded random shard lists with ties, NaN keys and
 * several sort orders; then the epochs that keep a reused slot apart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32 } from '../../../bench/support/mulberry32.ts';
import {
  BOARD_BY_KEY_ASC, BOARD_BY_KEY_DESC, BOARD_BY_SCORE, FETCH_BOARD_MAX_HITS, FETCH_BOARD_SLOTS, createFetchBoardBuffer,
  FetchBoard, FetchBoardSlots, type BoardSeat,
} from './fetch-board.ts';

interface Hit { shard: number; rank: number; key: number; second: number }

/** The merge's order (search-exec.ts hitComparator) on first key, then second key (when two), then shard. */
function modelCompare(order: number, twoKeys: boolean, a: Hit, b: Hit): number {
  const desc = order !== BOARD_BY_KEY_ASC;
  if (a.key !== b.key) return (a.key < b.key ? -1 : 1) * (desc ? -1 : 1);
  if (twoKeys && a.second !== b.second) return a.second - b.second;
  return a.shard - b.shard || a.rank - b.rank;
}

test('a hit is skipped only when the merge puts it past the page, and fetched whenever it is on it', () => {
  const r = mulberry32(7);
  const board = new FetchBoard(createFetchBoardBuffer());
  const slots = new FetchBoardSlots(board);
  for (let round = 0; round < 400; round++) {
    const order = [BOARD_BY_SCORE, BOARD_BY_KEY_ASC, BOARD_BY_KEY_DESC][round % 3];
    const twoKeys = order !== BOARD_BY_SCORE && round % 4 === 1;
    const withNaN = round % 5 === 2;
    const shardCount = 2 + Math.floor(r() * 4), limit = 1 + Math.floor(r() * 12);
    const lent = slots.borrow()!;
    const lists: Hit[][] = [];
    for (let sh = 0; sh < shardCount; sh++) {
      const n = Math.floor(r() * (limit + 1));
      // Few distinct keys: ties within and across shards.
      const hits = Array.from({ length: n }, () => ({ shard: sh, rank: 0, key: Math.floor(r() * 6), second: Math.floor(r() * 3) }));
      if (withNaN && n > 0) hits[Math.floor(r() * n)].key = NaN;
      // The shard's own order is the merge's (NaN last here; the board never counts past it anyway).
      hits.sort((a, b) => (Number.isNaN(a.key) ? 1 : 0) - (Number.isNaN(b.key) ? 1 : 0) || modelCompare(order, twoKeys, a, b));
      hits.forEach((h, i) => { h.rank = i; });
      lists.push(hits);
    }
    const published = lists.map(() => r() < 0.7 || !withNaN);
    for (let sh = 0; sh < shardCount; sh++) if (published[sh]) board.publish(seat(lent, sh, shardCount), Float64Array.from(lists[sh], (h) => h.key), lists[sh].length);
    const merged = lists.flat().filter((h) => !Number.isNaN(h.key));
    merged.sort((a, b) => modelCompare(order, twoKeys, a, b));
    for (let sh = 0; sh < shardCount; sh++) {
      for (const h of lists[sh]) {
        const may = board.mayBeOnPage(seat(lent, sh, shardCount), order, !twoKeys, h.rank, h.key, limit);
        if (Number.isNaN(h.key)) continue;
        const onPage = merged.indexOf(h) < limit;
        if (onPage) assert.ok(may, `round ${round}: a page hit would be skipped`);
        if (!withNaN && !twoKeys && published.every(Boolean)) assert.equal(may, onPage, `round ${round}: shard ${sh} rank ${h.rank}`);
      }
    }
    slots.giveBack(lent.slot);
  }
});

test('a slot given back and lent again ignores what was published under its earlier epoch', () => {
  const board = new FetchBoard(createFetchBoardBuffer());
  const slots = new FetchBoardSlots(board);
  const first = slots.borrow()!;
  board.publish(seat(first, 0, 2), [9, 8, 7], 3);
  assert.equal(board.mayBeOnPage(seat(first, 1, 2), BOARD_BY_SCORE, true, 0, 1, 3), false, 'three better hits on shard 0');
  slots.giveBack(first.slot);
  // A late writer of the old search: the slot is no longer its epoch's, so nothing is written.
  board.publish(seat(first, 0, 2), [9, 8, 7], 3);
  const lent: { slot: number; epoch: number }[] = [];
  for (let i = 0; i < FETCH_BOARD_SLOTS; i++) lent.push(slots.borrow()!);
  assert.equal(slots.borrow(), null, 'every slot lent');
  const again = lent.find((l) => l.slot === first.slot)!;
  assert.notEqual(again.epoch, first.epoch);
  assert.equal(board.mayBeOnPage(seat(again, 1, 2), BOARD_BY_SCORE, true, 0, 1, 3), true, 'shard 0 has not published in this epoch');
  board.publish(seat(again, 0, 2), [0.5], 1);
  assert.equal(board.mayBeOnPage(seat(again, 1, 2), BOARD_BY_SCORE, true, 2, 0.4, 3), false, 'two of its own and one of shard 0 before it');
  assert.equal(board.mayBeOnPage(seat(again, 1, 2), BOARD_BY_SCORE, true, 1, 0.6, 3), true);
  assert.ok(FETCH_BOARD_MAX_HITS >= 64, 'a single-phase page (at most 64 hits over all shards) fits a shard area');
});

function seat(l: { slot: number; epoch: number }, shard: number, shardCount: number): BoardSeat {
  return { slot: l.slot, epoch: l.epoch, shard, shardCount };
}
