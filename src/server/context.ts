/**
 * What every API module gets from the server at start-up. Route modules export
 * `register<Area>Routes(router, ctx)` (and may return hooks for start/stop) and reach engine code only
 * through `ctx.pool` (shard workers) or through engine modules that are explicitly main-thread (scrape
 * loop, metadata).
 */
import type { ShardPool } from './pool.ts';
import type { SelfMetrics } from './self-metrics.ts';
import type { Flags } from './flags.ts';

import type { Logger } from '../runtime/logger.ts';

export type { Logger };

export interface ServerContext {
  readonly flags: Flags;
  /** Absolute data directory (`--path.data`). */
  readonly dataDir: string;
  readonly pool: ShardPool;
  readonly log: Logger;
  readonly metrics: SelfMetrics;
  /** Milliseconds since the epoch; the workflow test clock replaces it for that service only. */
  now(): number;
}

/** Optional lifecycle of a service module: recovery before ready, work on reload, clean stop. */
export interface ServiceHooks {
  /** Runs before `/-/ready` turns 200 (WAL replay, block loading…). */
  start?(): Promise<void>;
  /** SIGHUP or `/-/reload`; throws to refuse a bad config (the old one keeps running). */
  reload?(): Promise<void>;
  /**
   * SIGTERM, before the listeners drain: cut work that would hold an in-flight request for long (a PromQL query
   * runs up to its timeout), so the drain, and the exit, do not wait for it.
   */
  stopping?(): void;
  /** Flush and fsync what is pending; called on SIGTERM after listeners stop. */
  stop?(): Promise<void>;
}

/** Runs several services' hooks as one: start and reload in order, stop in reverse order. */
export function combineHooks(...all: ServiceHooks[]): ServiceHooks {
  return {
    start: async () => { for (const h of all) await h.start?.(); },
    reload: async () => { for (const h of all) await h.reload?.(); },
    stopping: () => { for (const h of all) h.stopping?.(); },
    stop: async () => { for (const h of [...all].reverse()) await h.stop?.(); },
  };
}
