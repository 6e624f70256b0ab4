/**
 * The storage PromQL queries read: the local TSDB, merged with every `remote_read` endpoint the query's
 * selectors and time range call for (see `RemoteReadClient.range`). Without remote-read endpoints it is
 * the TSDB client itself, packed replies included; with them, selects are decoded here so local and
 * remote samples of the same series merge into one. A failing endpoint is logged and its data left out,
 * as Prometheus turns remote-read errors into warnings.
 */
import type { FetchedSeries, Label, Matcher } from '../../engine/tsdb/api.ts';
import type { PackedSelect } from '../../engine/tsdb/packed-series.ts';
import { mergeSeries } from '../../engine/tsdb/packed-series.ts';
import type { RemoteReadConfig } from '../../engine/scrape/config.ts';
import { RemoteReadClient } from '../../engine/remote/remote-read-client.ts';
import type { SeriesClient } from './query-routes.ts';
import type { TsdbClient } from './tsdb-client.ts';

export class RemoteReadStorage implements SeriesClient {
  private clients: RemoteReadClient[] = [];
  private readonly local: TsdbClient;
  private readonly warn: (msg: string) => void;

  constructor(local: TsdbClient, warn: (msg: string) => void) {
    this.local = local;
    this.warn = warn;
  }

  /** Takes the `remote_read` entries of the config in force (on start and every reload). */
  configure(cfgs: readonly RemoteReadConfig[], externalLabels: readonly Label[]): void {
    this.clients = cfgs.map((c) => new RemoteReadClient(c, externalLabels));
  }

  /**
   * The packed fast path, offered only while no remote endpoint needs merging in; the workers get the query's
   * deadline and cancellation with it.
   */
  get selectPacked(): ((ms: readonly Matcher[], mintMs: number, maxtMs: number, deadlineMs?: number, signal?: AbortSignal) => Promise<PackedSelect[]>) | undefined {
    return this.clients.length === 0 ? (ms, mint, maxt, deadlineMs, signal) => this.local.selectPacked(ms, mint, maxt, deadlineMs, signal) : undefined;
  }

  async select(matchers: readonly Matcher[], mintMs: number, maxtMs: number): Promise<FetchedSeries[]> {
    const localPart = this.local.select(matchers, mintMs, maxtMs);
    let localMinMs = Infinity;
    if (this.clients.some((c) => !c.cfg.readRecent)) {
      for (const f of await this.local.figures()) if (f.lowestTime !== null) localMinMs = Math.min(localMinMs, f.lowestTime);
    }
    const remote = await Promise.all(this.clients.map(async (c) => {
      const range = c.range(matchers, mintMs, maxtMs, localMinMs);
      if (range === null) return [];
      try {
        return await c.read(matchers, range[0], range[1]);
      } catch (e) {
        this.warn(`remote read from ${c.cfg.url}: ${(e as Error).message}`);
        return [];
      }
    }));
    const lists = [await localPart, ...remote.filter((l) => l.length > 0)];
    return lists.length === 1 ? lists[0] : mergeSeries(lists);
  }
}
