/**
 * `dfs_query_then_fetch`: shards report the statistics their query would use, the coordinator sums them,
 * and the query phase then scores every shard with the same global docCount / docFreq / sumTotalTermFreq.
 */
import type { FieldStats, IndexReader, StatsSource, TermStats } from './index-reader.ts';
import type { SearchRequest } from './search-request.ts';
import type { Query } from './query-ast.ts';
import { compileContext } from './shard-search.ts';
import { compile } from './query-compiler.ts';

export interface DfsStats {
  fields: Record<string, [number, number]>;
  /** key `field\u0000term` → [docFreq, totalTermFreq] */
  terms: Record<string, [number, number]>;
}

class RecordingStats implements StatsSource {
  readonly out: DfsStats = { fields: {}, terms: {} };
  constructor(private readonly inner: StatsSource) {}
  fieldStats(field: string): FieldStats {
    const s = this.inner.fieldStats(field);
    this.out.fields[field] = [s.docCount, s.sumTotalTermFreq];
    return s;
  }
  termStats(field: string, term: string): TermStats {
    const s = this.inner.termStats(field, term);
    this.out.terms[`${field}\u0000${term}`] = [s.docFreq, s.totalTermFreq];
    return s;
  }
}

export function collectDfs(reader: IndexReader, req: SearchRequest, index: string, nowMs: number, filter: Query | null): DfsStats {
  const rec = new RecordingStats(reader);
  const ctx = compileContext(reader, index, nowMs, rec);
  if (req.query) compile(req.query, ctx);
  if (filter) compile(filter, ctx);
  return rec.out;
}

export function mergeDfs(list: DfsStats[]): DfsStats {
  const out: DfsStats = { fields: {}, terms: {} };
  for (const s of list) {
    for (const [k, [a, b]] of Object.entries(s.fields)) { const c = out.fields[k] ?? [0, 0]; out.fields[k] = [c[0] + a, c[1] + b]; }
    for (const [k, [a, b]] of Object.entries(s.terms)) { const c = out.terms[k] ?? [0, 0]; out.terms[k] = [c[0] + a, c[1] + b]; }
  }
  return out;
}

/** Statistics summed over every shard of the search. */
export class GlobalStats implements StatsSource {
  constructor(private readonly s: DfsStats) {}
  fieldStats(field: string): FieldStats {
    const v = this.s.fields[field];
    return v ? { docCount: v[0], sumTotalTermFreq: v[1] } : { docCount: 0, sumTotalTermFreq: 0 };
  }
  termStats(field: string, term: string): TermStats {
    const v = this.s.terms[`${field}\u0000${term}`];
    return v ? { docFreq: v[0], totalTermFreq: v[1] } : { docFreq: 0, totalTermFreq: 0 };
  }
}
