/**
 * Scrape pools, one per `scrape_configs` job, each with its discovery (static + file SD) and one
 * `ScrapeLoop` per target. `apply(cfg)` moves from the running config to a new one without losing data:
 * a target that survives keeps its series state (no false staleness), a target that disappears gets
 * staleness markers, a new one starts at its aligned offset.
 */
import type { PromConfig, ScrapeConfig, TargetGroup } from './config.ts';
import { DiscoverySet } from './discovery-set.ts';
import { targetLimitError } from './scrape-limits.ts';
import { ScrapeLoop, type LoopDeps } from './scrape-loop.ts';
import { buildTargets, type DroppedTarget } from './target.ts';

export interface ManagerOptions extends LoopDeps {
  /** Mixed into target offsets so two servers scraping the same target do not scrape in lock step. */
  jitterSeed: string;
  onError(msg: string): void;
}

class ScrapePool {
  cfg: ScrapeConfig;
  readonly loops = new Map<string, ScrapeLoop>();
  dropped: DroppedTarget[] = [];
  private discovery: DiscoverySet | null = null;
  private readonly opts: ManagerOptions;
  private groups: TargetGroup[] = [];
  private syncing: Promise<void> = Promise.resolve();

  constructor(cfg: ScrapeConfig, opts: ManagerOptions) {
    this.cfg = cfg;
    this.opts = opts;
  }

  async start(previous: ScrapePool | null): Promise<void> {
    this.discovery = new DiscoverySet(`scrape pool ${this.cfg.jobName}`, this.cfg, (groups) => {
      this.groups = groups;
      void this.queueSync(null);
    }, { onError: this.opts.onError, get: this.opts.get });
    this.groups = await this.discovery.start();
    await this.queueSync(previous);
  }

  /** Serialises target syncs so a file change and a reload never interleave. */
  queueSync(previous: ScrapePool | null): Promise<void> {
    this.syncing = this.syncing.then(() => this.sync(previous)).catch((e) => this.opts.onError(String(e)));
    return this.syncing;
  }

  private async sync(previous: ScrapePool | null): Promise<void> {
    const t0 = performance.now();
    const built = buildTargets(this.cfg, this.groups);
    for (const err of built.errors) this.opts.onError(`scrape pool ${this.cfg.jobName}: ${err}`);
    this.dropped = built.dropped;
    const keep = new Set(built.active.map((t) => t.key));
    const stops: Promise<void>[] = [];
    for (const [key, loop] of this.loops) {
      if (!keep.has(key)) { this.loops.delete(key); stops.push(loop.stop(true)); }
    }
    for (const t of built.active) {
      if (this.loops.has(t.key)) continue;
      const loop = new ScrapeLoop(t, this.cfg, this.opts);
      const old = previous?.loops.get(t.key);
      if (old) { await old.stop(false); loop.adopt(old); previous!.loops.delete(t.key); }
      this.loops.set(t.key, loop);
      loop.start(this.opts.jitterSeed);
    }
    await Promise.all(stops);
    // Over target_limit, every target fails its scrapes with the same error until the pool shrinks (Prometheus's forced error).
    const limit = this.cfg.targetLimit;
    const forced = limit > 0 && this.loops.size > limit ? targetLimitError(this.loops.size, limit) : '';
    for (const loop of this.loops.values()) loop.forcedError = forced;
    this.opts.observer?.synced(this.cfg.jobName, built.errors.length, (performance.now() - t0) / 1000);
  }

  /** Stops discovery and every loop; `markStale` writes staleness markers (the pool is going away). */
  async stop(markStale: boolean): Promise<void> {
    this.discovery?.stop();
    await this.syncing;
    await Promise.all([...this.loops.values()].map((l) => l.stop(markStale)));
    if (markStale) this.loops.clear();
  }
}

export class ScrapeManager {
  private readonly opts: ManagerOptions;
  private pools = new Map<string, ScrapePool>();
  private cfg: PromConfig | null = null;

  constructor(opts: ManagerOptions) {
    this.opts = opts;
  }

  get config(): PromConfig | null { return this.cfg; }

  /** Switches to `cfg`. Jobs whose config is unchanged keep running untouched. */
  async apply(cfg: PromConfig): Promise<void> {
    const next = new Map<string, ScrapePool>();
    const stops: Promise<void>[] = [];
    for (const sc of cfg.scrapeConfigs) {
      const old = this.pools.get(sc.jobName);
      if (old && sameConfig(old.cfg, sc)) { next.set(sc.jobName, old); continue; }
      const pool = new ScrapePool(sc, this.opts);
      next.set(sc.jobName, pool);
      if (old) {
        // Stop discovery only; loops of surviving targets are handed over in sync().
        await old.stop(false);
        await pool.start(old);
        stops.push(...[...old.loops.values()].map((l) => l.stop(true)));
      } else {
        await pool.start(null);
      }
    }
    for (const [name, pool] of this.pools) if (!next.has(name)) stops.push(pool.stop(true));
    this.pools = next;
    this.cfg = cfg;
    await Promise.all(stops);
  }

  /** Stops every pool. Staleness markers are not written: the data stays as it was at shutdown. */
  async stop(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.stop(false)));
    this.pools.clear();
  }

  /** Pools in config order with their loops, for the targets and metadata APIs. */
  snapshot(): { name: string; cfg: ScrapeConfig; loops: ScrapeLoop[]; dropped: DroppedTarget[] }[] {
    return [...this.pools.values()].map((p) => ({ name: p.cfg.jobName, cfg: p.cfg, loops: [...p.loops.values()], dropped: p.dropped }));
  }
}

function sameConfig(a: ScrapeConfig, b: ScrapeConfig): boolean {
  return JSON.stringify(a, regexAware) === JSON.stringify(b, regexAware);
}

function regexAware(_k: string, v: unknown): unknown {
  return v instanceof RegExp ? v.source + '/' + v.flags : v;
}
