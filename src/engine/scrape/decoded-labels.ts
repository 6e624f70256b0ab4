/**
 * Label arrays decoded from producers' series tables, kept per series for consumers that need the object
 * form of every scrape and key their own caches by array identity (the remote-write queues' relabel cache):
 * without it, each scrape would decode every series' labels again and miss those caches. Only a server with
 * remote-write queues keeps them, so the flat tables stay flat otherwise. An eviction in a table (its
 * `generation` changes) drops the table's arrays; they are decoded again as series are appended.
 */
import type { Label } from '../tsdb/api.ts';
import type { IngestSample } from './sample-sink.ts';
import type { SampleColumns } from './sample-columns.ts';
import type { SeriesTable } from './series-table.ts';

interface TableLabels { generation: number; labels: (Label[] | undefined)[] }

export class DecodedLabels {
  private readonly byTable = new WeakMap<SeriesTable, TableLabels>();

  /** `columns` in object form, each series' labels one array for as long as its table keeps its ids. */
  samples(columns: SampleColumns): IngestSample[] {
    const table = columns.table;
    let kept = this.byTable.get(table);
    if (kept === undefined || kept.generation !== table.generation) {
      kept = { generation: table.generation, labels: [] };
      this.byTable.set(table, kept);
    }
    const out: IngestSample[] = new Array(columns.n);
    for (let i = 0; i < columns.n; i++) {
      const sid = columns.sids[i];
      let labels = kept.labels[sid];
      if (labels === undefined) labels = kept.labels[sid] = Object.freeze(table.labels(sid)) as Label[];
      out[i] = { labels, t: columns.ts[i], v: columns.vs[i] };
    }
    return out;
  }
}
