/**
 * One string per distinct symbol over all the block indexes a thread has open. Each open block keeps its symbol
 * table for its life, and consecutive blocks hold mostly the same names and values: with 360 blocks (30 days of
 * 2 h blocks) open in each shard worker, the copies were most of a worker's memory at start-up
 * (docs/benchmarks.md, issue 11). An entry lives while a block holding it is open (a count per string), so
 * the table does not keep the symbols of closed blocks. Per thread; not re-entrant.
 */
const entries = new Map<string, { s: string; blocks: number }>();

/** The shared copy of `s`, counted for one more open block. */
export function internSymbol(s: string): string {
  const e = entries.get(s);
  if (e !== undefined) { e.blocks++; return e.s; }
  entries.set(s, { s, blocks: 1 });
  return s;
}

/** Ends one block's use of each of `symbols` (every one of them from `internSymbol`). */
export function releaseSymbols(symbols: readonly string[]): void {
  for (let i = 0; i < symbols.length; i++) {
    const e = entries.get(symbols[i]);
    if (e !== undefined && --e.blocks === 0) entries.delete(symbols[i]);
  }
}

/** Distinct symbols held now (for tests). */
export function internedSymbols(): number { return entries.size; }
