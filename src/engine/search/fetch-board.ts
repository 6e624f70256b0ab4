/**
 * The fetch board: the shards of one search tell each other their top hits' sort keys through shared memory, so
 * each shard fetches (`_source`, highlight, …) only the hits that can still be on the merged page. Elasticsearch
 * gets the same by a separate fetch phase after the merge (query_then_fetch); here the shards share the process,
 * the extra round trip to the workers would cost more than the fetches it saves (two wake-ups each way), and a
 * shard's fetch was 30–60% of its query's CPU with half of the fetched hits thrown away by the merge.
 *
 * A shard publishes its sorted top hits' first sort keys as soon as its query phase ends. Before fetching its
 * hit at rank `i`, it counts the hits known to sort before it: its own `i`, plus, for every other shard that has
 * published, the prefix of that shard's list that sorts before it for certain. At `from + size` or more the hit
 * cannot be on the page and is left unfetched (`ShardHit.unfetched`). The board is advisory: the coordinator
 * checks that every hit on its page was fetched and otherwise searches again without it (a shard that
 * published and then failed, a slot reused under a worker still writing).
 *
 * Comparisons mirror the coordinator's merge order (search-exec.ts `hitComparator`): by score (descending),
 * or by the first sort key when it is a number on both sides; ties go to the lower shard order. A tie on the
 * first of several sort keys, or a key that is not a number, counts as "not known to sort before": that only
 * means more fetching.
 *
 * Layout of the shared buffer: FETCH_BOARD_SLOTS slots, each a slot header and one area per shard order:
 *   Int32 slotEpoch · Int32 pad · per shard: Int32 publishedEpoch, Int32 count · per shard: Float64 keys[MAX_HITS]
 * Nothing of it is on disk.
 */

/** Searches that can use the board at the same time (a later one fetches all its hits). */
export const FETCH_BOARD_SLOTS = 32;
/** Shards of one search the board holds (searches over more fetch all their hits). */
export const FETCH_BOARD_MAX_SHARDS = 8;
/** Hits per shard the board holds: `from + size` of a search that uses it is at most this. */
export const FETCH_BOARD_MAX_HITS = 64;

const HEADER_INTS = 2 + 2 * FETCH_BOARD_MAX_SHARDS;
const SLOT_BYTES = HEADER_INTS * 4 + FETCH_BOARD_MAX_SHARDS * FETCH_BOARD_MAX_HITS * 8;

/** How a search orders its hits, as far as the board compares them. */
export const BOARD_BY_SCORE = 0, BOARD_BY_KEY_ASC = 1, BOARD_BY_KEY_DESC = 2;

/** One search's place on the board, as the coordinator lends it to each shard call. */
export interface BoardSeat { slot: number; epoch: number; shard: number; shardCount: number }

export function createFetchBoardBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(FETCH_BOARD_SLOTS * SLOT_BYTES);
}

/** Whether a search's page can use the board (the coordinator's side of the limits above). */
export function boardFits(shardCount: number, from: number, size: number): boolean {
  return shardCount > 1 && shardCount <= FETCH_BOARD_MAX_SHARDS && size > 0 && from + size <= FETCH_BOARD_MAX_HITS;
}

export class FetchBoard {
  private readonly ints: Int32Array;
  private readonly keys: Float64Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.ints = new Int32Array(buffer);
    this.keys = new Float64Array(buffer);
  }

  /** Marks `slot` as the search `epoch`'s (the coordinator, before its shard calls). */
  open(slot: number, epoch: number): void {
    Atomics.store(this.ints, slot * (SLOT_BYTES / 4), epoch);
  }

  /**
   * Publishes a shard's top hits' keys (its sorted order, at most FETCH_BOARD_MAX_HITS; NaN where not a
   * number). Nothing is written once the slot belongs to another search.
   */
  publish(seat: BoardSeat, keys: ArrayLike<number>, n: number): void {
    const base = seat.slot * (SLOT_BYTES / 4);
    if (Atomics.load(this.ints, base) !== seat.epoch) return;
    const k0 = this.keyBase(seat.slot, seat.shard);
    for (let i = 0; i < n; i++) this.keys[k0 + i] = keys[i];
    Atomics.store(this.ints, base + 3 + 2 * seat.shard, n);
    // The keys and count above happen before any load that sees this epoch (sequentially consistent atomics).
    Atomics.store(this.ints, base + 2 + 2 * seat.shard, seat.epoch);
  }

  /**
   * Whether this shard's hit at rank `rank` of its own list, with first key `key`, can still be among the first
   * `limit` hits of the merge, as far as the shards that have published tell.
   */
  mayBeOnPage(seat: BoardSeat, order: number, singleKey: boolean, rank: number, key: number, limit: number): boolean {
    const base = seat.slot * (SLOT_BYTES / 4);
    let before = rank;
    for (let o = 0; o < seat.shardCount && before < limit; o++) {
      if (o === seat.shard || Atomics.load(this.ints, base + 2 + 2 * o) !== seat.epoch) continue;
      const n = Atomics.load(this.ints, base + 3 + 2 * o), k0 = this.keyBase(seat.slot, o);
      // Lists are sorted: count the prefix that sorts before for certain.
      for (let j = 0; j < n && sortsBefore(order, singleKey, this.keys[k0 + j], o, key, seat.shard); j++) before++;
    }
    return before < limit;
  }

  private keyBase(slot: number, shard: number): number {
    return (slot * SLOT_BYTES + HEADER_INTS * 4) / 8 + shard * FETCH_BOARD_MAX_HITS;
  }
}

/** Does key `a` of shard order `sa` sort before key `b` of shard order `sb`, for certain? */
function sortsBefore(order: number, singleKey: boolean, a: number, sa: number, b: number, sb: number): boolean {
  // NaN (not a number, or unknown) compares false everywhere below: not known to sort before.
  if (order === BOARD_BY_SCORE) return a > b || (a === b && sa < sb);
  if (order === BOARD_BY_KEY_DESC ? a > b : a < b) return true;
  // Equal first keys: the shard order decides only when there is no second key.
  return a === b && singleKey && sa < sb;
}

/** Lends board slots to searches, each under a new epoch (main thread; not re-entrant). */
export class FetchBoardSlots {
  private readonly free: number[] = [];
  private epoch = 0;

  constructor(readonly board: FetchBoard) {
    for (let s = FETCH_BOARD_SLOTS - 1; s >= 0; s--) this.free.push(s);
  }

  /** A slot under a fresh epoch, or null when all are lent. */
  borrow(): { slot: number; epoch: number } | null {
    const slot = this.free.pop();
    if (slot === undefined) return null;
    this.epoch = (this.epoch % 0x7fff_fffe) + 1;
    this.board.open(slot, this.epoch);
    return { slot, epoch: this.epoch };
  }

  /** Back once every shard call of its search has settled. */
  giveBack(slot: number): void {
    this.board.open(slot, 0);
    this.free.push(slot);
  }
}
