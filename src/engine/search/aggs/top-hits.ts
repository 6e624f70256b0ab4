/**
 * `top_hits`: the best `from + size` docs of a bucket by score or `sort`, fetched (with `_source`
 * filtering) on the shard so the coordinator only merges.
 */
import type { Segment } from '../../postings/segment.ts';
import type { AggSpec } from './agg-parser.ts';
import type { AggCollector, AggEnv, AggPartial } from './agg-collectors.ts';
import { BoundSort, type SortValue } from '../sort.ts';
import { parseSort, parseSourceFilter } from '../search-request.ts';
import { filterSource } from '../source-filter.ts';
import { TopFieldCollector } from '../top-collectors.ts';

const decoder = new TextDecoder();

export class TopHitsCollector implements AggCollector {
  private readonly sort: BoundSort | null;
  private readonly top: TopFieldCollector;
  private seg: Segment | null = null;
  private base = 0;
  private total = 0;
  private readonly n: number;
  private readonly segsById = new Map<number, Segment>();
  constructor(private readonly spec: AggSpec, private readonly env: AggEnv) {
    const p = spec.params;
    this.n = Number(p.from ?? 0) + Number(p.size ?? 3);
    const specs = p.sort ? parseSort(p.sort) : null;
    this.sort = specs ? new BoundSort(specs, env.ctx.reader.infos, env.ctx.index) : null;
    this.top = this.sort ? new TopFieldCollector(this.n, this.sort.kinds, this.sort.reverse) : new TopFieldCollector(this.n, ['score'], [true]);
  }
  setSegment(ord: number, seg: Segment): void { this.seg = seg; this.base = this.env.ctx.reader.docBases[ord]; this.segsById.set(this.base, seg); }
  collect(doc: number, score: number): void {
    this.total++;
    const keys: SortValue[] = this.sort ? this.sort.keys(this.seg!, doc, this.base + doc, score) : [score];
    this.top.collect(this.base + doc, score, keys);
  }
  partial(): AggPartial {
    const filter = parseSourceFilter(this.spec.params._source);
    const reader = this.env.ctx.reader;
    const hits = this.top.hits.map((h) => {
      const stored = reader.stored(h.doc);
      return { index: this.env.ctx.index, id: stored.id, doc: h.doc, score: h.score, sort: this.sort ? h.keys : null, source: filterSource(decoder.decode(stored.source), filter) };
    });
    return { name: this.spec.name, type: 'top_hits', total: this.total, maxScore: this.top.maxScore, hits, sorted: this.sort !== null,
      kinds: this.sort ? this.sort.kinds : ['score'], reverse: this.sort ? this.sort.reverse : [true], from: Number(this.spec.params.from ?? 0), size: Number(this.spec.params.size ?? 3) };
  }
}
