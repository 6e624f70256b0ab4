/**
 * `/api/v1/status/tsdb` from the shards' raw head figures: head stats and the top-10 cardinality lists of
 * Prometheus's `index.PostingsStats` (series per metric name, values per label name, bytes of values per
 * label name, series per label pair).
 */
import type { ShardStatus } from './tsdb-client.ts';

interface Stat { name: string; value: number }

const enc = new TextEncoder();

function top(m: Map<string, number>, n: number): Stat[] {
  return [...m].map(([name, value]) => ({ name, value }))
    .sort((a, b) => b.value - a.value || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).slice(0, n);
}

/**
 * The response body. An empty head reports Go's int64 extremes as its range (Prometheus's MinTime/MaxTime
 * of a head that never got a sample), or the newest block's max time when there are blocks; those numbers
 * do not fit a double, so the JSON text is assembled here.
 */
export function tsdbStatusBody(shards: ShardStatus[], limit: number): string {
  const pairs = new Map<string, Map<string, number>>();
  let numSeries = 0, chunkCount = 0, minT: number | null = null, maxT: number | null = null, blocksMax: number | null = null;
  for (const s of shards) {
    numSeries += s.numSeries; chunkCount += s.chunkCount;
    if (s.minTime !== null) minT = minT === null ? s.minTime : Math.min(minT, s.minTime);
    if (s.maxTime !== null) maxT = maxT === null ? s.maxTime : Math.max(maxT, s.maxTime);
    if (s.blocksMaxTime !== null) blocksMax = blocksMax === null ? s.blocksMaxTime : Math.max(blocksMax, s.blocksMaxTime);
    for (const name in s.pairs) {
      let vals = pairs.get(name);
      if (!vals) { vals = new Map(); pairs.set(name, vals); }
      const flat = s.pairs[name];
      for (let i = 0; i < flat.length; i += 2) vals.set(flat[i] as string, (vals.get(flat[i] as string) ?? 0) + (flat[i + 1] as number));
    }
  }
  const byMetric = new Map<string, number>(), valueCount = new Map<string, number>(), memory = new Map<string, number>(), pairCount = new Map<string, number>();
  let numLabelPairs = 0;
  for (const [name, vals] of pairs) {
    valueCount.set(name, vals.size);
    let bytes = 0;
    for (const [v, n] of vals) {
      numLabelPairs++;
      if (name === '__name__') byMetric.set(v, n);
      pairCount.set(`${name}=${v}`, n);
      bytes += enc.encode(v).length * n;
    }
    memory.set(name, bytes);
  }
  const [minText, maxText] = minT !== null && maxT !== null ? [String(minT), String(maxT)]
    : blocksMax !== null ? [String(blocksMax), String(blocksMax)] : ['9223372036854775807', '-9223372036854775808'];
  const headStats = `{"numSeries":${numSeries},"numLabelPairs":${numLabelPairs},"chunkCount":${chunkCount},"minTime":${minText},"maxTime":${maxText}}`;
  const rest = JSON.stringify({
    seriesCountByMetricName: top(byMetric, limit),
    labelValueCountByLabelName: top(valueCount, limit),
    memoryInBytesByLabelName: top(memory, limit),
    seriesCountByLabelValuePair: top(pairCount, limit),
  });
  return `{"status":"success","data":{"headStats":${headStats},${rest.slice(1, -1)}}}`;
}
