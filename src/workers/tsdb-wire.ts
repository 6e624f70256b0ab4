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

/**
 * Label-set table of an append: entry i is a known series ref (`refs[i] > 0`, valid only for `epoch`) or its
 * flat labels (`series[i]`, then `refs[i]` is 0). Samples point into the table with `sidx`.
 */
export interface AppendArgs { series: (string[] | null)[]; refs: Float64Array; epoch: number; sidx: Uint32Array; ts: Float64Array; vs: Float64Array }

export interface AppendReply {
  added: number; outOfOrder: number; duplicate: number; outOfBounds: number; firstError: string;
  /** Ref per table entry (0 = unresolved) and the epoch they belong to. */
  refs: number[];
  epoch: number;
  /** Table entries whose ref was not valid; their samples were not appended and must be resent with labels. */
  unknown?: number[];
}

export interface RangeArgs { selectors: MatcherWire[][]; mint: number; maxt: number }

export interface SelectArgs { matchers: MatcherWire[]; mint: number; maxt: number }

/** Concatenated samples: series i owns `[offsets[i], offsets[i+1])` of t and v. */
export interface SelectReply { labels: string[][]; offsets: Uint32Array; t: Float64Array; v: Float64Array }
