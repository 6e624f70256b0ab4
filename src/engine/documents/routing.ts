/**
 * Shard routing exactly as Elasticsearch 6.x: murmur3_x86_32 (seed 0) over the routing value encoded as
 * UTF-16LE code units, then `Math.floorMod(hash, numberOfShards)` (6.x has no routing factor, so the
 * routing-shards count equals the shard count). Matching ES keeps `_seq_no` streams, per-shard scores and
 * `match_all` order identical to a real node.
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** Lucene's `StringHelper.murmurhash3_x86_32` over the UTF-16LE bytes of `s`, as a signed int32. */
export function murmur3Utf16(s: string): number {
  const n = s.length;
  let h = 0;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    // Two chars make one little-endian 4-byte block.
    let k = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  if (i < n) {
    let k = s.charCodeAt(i);
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
  }
  h ^= n * 2;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** Java's `Math.floorMod` for int32 operands. */
export function floorMod(x: number, n: number): number {
  const r = x % n;
  return r < 0 ? r + n : r | 0; // `| 0` turns -0 into 0
}

/** The shard number of a document: `routing` when given, else `_id`. */
export function shardFor(idOrRouting: string, numberOfShards: number): number {
  return floorMod(murmur3Utf16(idOrRouting), numberOfShards);
}
