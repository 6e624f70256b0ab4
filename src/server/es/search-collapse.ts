/**
 * The coordinator's part of `collapse`: the request combinations a 6.8 shard refuses, and the expand phase that
 * fills each collapsed hit's `inner_hits` with one search per group and definition, at most
 * `max_concurrent_group_searches` at a time.
 */
import type { SearchRequest } from '../../engine/search/index.ts';
import { groupSearchRequest, innerHitsName } from '../../engine/search/index.ts';
import { InvalidArgumentError } from '../../engine/errors.ts';
import type { EsCluster } from './cluster.ts';
import { executeSearch, phaseFailure, type MergedHit, type SearchOutcome, type ShardTarget } from './search-exec.ts';

/** A collapse `inner_hits` result: the group search and what it found. */
export interface CollapseInnerHits { name: string; req: SearchRequest; out: SearchOutcome }

/** ES checks these while parsing the request on each shard, so they fail as shard failures (500 search_exception). */
export function checkCollapse(req: SearchRequest, targets: ShardTarget[], scroll: boolean): void {
  if (!req.collapse || targets.length === 0) return;
  let msg: string | null = null;
  if (scroll) msg = 'cannot use `collapse` in a scroll context';
  else if (req.searchAfter) msg = 'cannot use `collapse` in conjunction with `search_after`';
  if (msg) throw phaseFailure(targets.map((t) => ({ t, err: new InvalidArgumentError('SEARCH_SHARD_REFUSED', msg) })));
}

/** Default parallelism of the group searches (ES bounds it by the nodes' search thread pools). */
const DEFAULT_GROUP_SEARCHES = 4;

export async function expandCollapsedHits(cluster: EsCluster, targets: ShardTarget[], req: SearchRequest, out: SearchOutcome, nowMs: number): Promise<void> {
  const spec = req.collapse;
  if (!spec || spec.innerHits.length === 0 || out.hits.length === 0) return;
  const jobs: { hit: MergedHit; name: string; req: SearchRequest }[] = [];
  for (const hit of out.hits) {
    hit.collapseInner = [];
    for (const ih of spec.innerHits) jobs.push({ hit, name: innerHitsName(spec, ih), req: groupSearchRequest(req, spec, ih, hit.group ?? null) });
  }
  const results: (SearchOutcome | undefined)[] = new Array(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await executeSearch(cluster, targets, jobs[i].req, { dfs: false, nowMs });
    }
  };
  const lanes = Math.min(jobs.length, spec.maxConcurrentGroupSearches ?? DEFAULT_GROUP_SEARCHES);
  await Promise.all(Array.from({ length: lanes }, worker));
  // Definitions keep their request order within each hit.
  jobs.forEach((j, i) => j.hit.collapseInner!.push({ name: j.name, req: j.req, out: results[i]! }));
}
