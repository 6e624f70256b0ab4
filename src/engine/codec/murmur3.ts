/**
 * Lucene's `StringHelper.murmurhash3_x86_32` over bytes (signed result): what ES hashes `_id`s with for sliced
 * scrolls and terms for partitioned `terms` aggregations. Routing hashes UTF-16 units instead (routing.ts).
 */
export function murmur3Bytes(b: Uint8Array, seed: number): number {
  const C1 = 0xcc9e2d51, C2 = 0x1b873593;
  let h = seed | 0;
  const n = b.length, end = n & ~3;
  for (let i = 0; i < end; i += 4) {
    let k = b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);
    k = Math.imul(k, C1); k = (k << 15) | (k >>> 17); k = Math.imul(k, C2);
    h ^= k; h = (h << 13) | (h >>> 19); h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const tail = n & 3;
  if (tail > 0) {
    let k = 0;
    if (tail === 3) k = b[end + 2] << 16;
    if (tail >= 2) k |= b[end + 1] << 8;
    k |= b[end];
    k = Math.imul(k, C1); k = (k << 15) | (k >>> 17); k = Math.imul(k, C2); h ^= k;
  }
  h ^= n;
  h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b); h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35); h ^= h >>> 16;
  return h | 0;
}
