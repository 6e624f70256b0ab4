/**
 * Shapes of the `tsdb.*` worker tasks (shared by src/workers/tsdb-tasks.ts and src/server/prom/tsdb-client.ts).
 * Label sets travel as flat `[name, value, name, value, …]` string arrays and samples as typed arrays, which
 * msgpack carries as raw bytes (stale-marker NaN bits included).
 */
export interface MatcherWire { type: number; name: string; value: string }

export interface TsdbOpenArgs {
  retentionMs: number;
  retentionBytes: number;
  blockRangeMs?: number;
  maxBlockDurationMs?: number;
  walCompression?: boolean;
}

export interface AppendArgs { series: string[][]; sidx: Uint32Array; ts: Float64Array; vs: Float64Array }

export interface RangeArgs { selectors: MatcherWire[][]; mint: number; maxt: number }

export interface SelectArgs { matchers: MatcherWire[]; mint: number; maxt: number }

/** Concatenated samples: series i owns `[offsets[i], offsets[i+1])` of t and v. */
export interface SelectReply { labels: string[][]; offsets: Uint32Array; t: Float64Array; v: Float64Array }
