/**
 * ES 6.8's thread pools as this node can report them. Every shard call runs on the shard worker threads, so the
 * pools that do work here (search, write, get, refresh, flush, force_merge, management) count their calls as the
 * cluster makes them: in flight, completed, rejected (the worker queue was full), and the most ever in flight. A
 * pool has as many threads as there are shard workers; calls in flight beyond that are reported as queued. The
 * other pools ES lists (analyze, generic, snapshot, …) exist with their 6.8 types and sizes and do no work here.
 */

type PoolType = 'fixed' | 'scaling' | 'fixed_auto_queue_size';

interface PoolDef { name: string; type: PoolType; queueSize: number }

/** ES 6.8 OSS pools in name order, with their types and default queue sizes (-1 = unbounded). */
const POOLS: PoolDef[] = [
  { name: 'analyze', type: 'fixed', queueSize: 16 }, { name: 'fetch_shard_started', type: 'scaling', queueSize: -1 },
  { name: 'fetch_shard_store', type: 'scaling', queueSize: -1 }, { name: 'flush', type: 'scaling', queueSize: -1 },
  { name: 'force_merge', type: 'fixed', queueSize: -1 }, { name: 'generic', type: 'scaling', queueSize: -1 },
  { name: 'get', type: 'fixed', queueSize: 1000 }, { name: 'index', type: 'fixed', queueSize: 200 },
  { name: 'listener', type: 'fixed', queueSize: -1 }, { name: 'management', type: 'scaling', queueSize: -1 },
  { name: 'refresh', type: 'scaling', queueSize: -1 }, { name: 'search', type: 'fixed_auto_queue_size', queueSize: 1000 },
  { name: 'search_throttled', type: 'fixed_auto_queue_size', queueSize: 100 }, { name: 'snapshot', type: 'scaling', queueSize: -1 },
  { name: 'warmer', type: 'scaling', queueSize: -1 }, { name: 'write', type: 'fixed', queueSize: 200 },
];

/** The pool a shard operation belongs to in ES. */
const POOL_OF: Record<string, string> = {
  'docs.write': 'write', 'docs.get': 'get', 'docs.refresh': 'refresh', 'docs.flush': 'flush', 'docs.forceMerge': 'force_merge',
  'docs.stats': 'management', 'docs.state': 'management', 'docs.segments': 'management',
  'search.query': 'search', 'search.dfs': 'search', 'search.fetch': 'search', 'search.scroll': 'search', 'search.clearScroll': 'search',
};

class PoolCounters {
  inFlight = 0;
  completed = 0;
  rejected = 0;
  largest = 0;
}

/** One row of figures, as `_cat/thread_pool` and `_nodes/stats` show them. */
export interface PoolFigures {
  name: string; type: PoolType; threads: number; active: number; queue: number; queueSize: number;
  rejected: number; largest: number; completed: number; keepAlive: string | null;
}

export class ThreadPools {
  private readonly counters = new Map<string, PoolCounters>();

  /** @param threads the shard worker count (every pool's work runs on those threads) */
  constructor(private readonly threads: number) {
    for (const p of POOLS) this.counters.set(p.name, new PoolCounters());
  }

  /** Counts a shard call from start to end; returns the pool's counters to settle with `end`. */
  begin(op: string): PoolCounters | null {
    const name = POOL_OF[op];
    if (name === undefined) return null;
    const c = this.counters.get(name)!;
    c.inFlight++;
    if (c.inFlight > c.largest) c.largest = Math.min(c.inFlight, this.threads);
    return c;
  }

  end(c: PoolCounters | null, rejected: boolean): void {
    if (c === null) return;
    c.inFlight--;
    if (rejected) c.rejected++;
    else c.completed++;
  }

  figures(): PoolFigures[] {
    return POOLS.map((p) => {
      const c = this.counters.get(p.name)!;
      const working = POOL_OF_VALUES.has(p.name);
      return {
        name: p.name, type: p.type, threads: working ? this.threads : 0,
        active: Math.min(c.inFlight, this.threads), queue: Math.max(0, c.inFlight - this.threads), queueSize: p.queueSize,
        rejected: c.rejected, largest: c.largest, completed: c.completed, keepAlive: p.type === 'scaling' ? '5m' : null,
      };
    });
  }
}

const POOL_OF_VALUES = new Set(Object.values(POOL_OF));
