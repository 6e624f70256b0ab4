/**
 * Public entry of the search engine: what shard workers run (index, query/fetch, dfs, scroll, _analyze) and
 * what the coordinator uses (request parsing, dfs merge, hit ordering, aggregation reduce and formatting).
 */
export type { MappingJson } from './api.ts';
export { fetchPhase, searchShard, type ShardHit, type ShardResult, type ShardSearchOptions } from './shard-search.ts';
export type { IndexReader } from './index-reader.ts';
export { collectDfs, GlobalStats, mergeDfs, type DfsStats } from './dfs.ts';
export { analyzeRequest, type AnalyzeArgs } from './analyze.ts';
export type { Token } from '../analysis/token-buf.ts';
export { ScrollStore } from './scroll-store.ts';
export { clearFielddata, fielddataBytes } from './fielddata.ts';
export { jsonTokenName, parseSearchBodyText, parseSort, parseSourceFilter, parseTimeMs, type SearchRequest } from './search-request.ts';
export { parseQuery } from './query-parser.ts';
export { parseSuggest, reduceSuggest, type SuggestResult } from './suggest.ts';
export { groupSearchRequest, innerHitsName, type GroupValue } from './collapse.ts';
export { parseJsonWithPos } from './json-pos.ts';
export type { Query } from './query-ast.ts';
export { compareKeys, type SortValue } from './sort.ts';
export { reduceAggs } from './aggs/agg-reduce.ts';
export type { AggPartial } from './aggs/agg-collectors.ts';
export type { AggSpec } from './aggs/agg-parser.ts';
export { compareBucketKeys, termsOrder } from './aggs/bucket-collectors.ts';
export { nextKey } from './aggs/date-rounding.ts';
export { applyBucketSorts } from './aggs/bucket-sort.ts';
export { NUMERIC_TYPES, FieldInfos } from '../indexing/field-infos.ts';
export { formatDate, parseDate } from '../analysis/date-format.ts';
export { sliceForShard, type SliceSpec } from './slice-query.ts';
export { boardFits, createFetchBoardBuffer, FetchBoard, FetchBoardSlots, type BoardSeat } from './fetch-board.ts';
export { BucketBudget, bucketWarning } from './aggs/bucket-budget.ts';
