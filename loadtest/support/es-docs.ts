/** Realistic ~1 KB log-like documents for the documents-API load tests, and `_bulk` bodies made of them. */

const WORDS = ('the quick brown fox jumps over lazy dog request served upstream timeout cache miss hit user session login ' +
  'logout error warning retry backend database query slow index shard replica node cluster memory disk network packet').split(' ');

/** Deterministic pseudo-random generator (xorshift32) so runs are comparable. */
export function rng(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; return (x >>> 0) / 4294967296; };
}

export function makeDoc(i: number, r: () => number): string {
  let message = '';
  while (message.length < 640) message += `${WORDS[Math.floor(r() * WORDS.length)]} `;
  return JSON.stringify({
    '@timestamp': new Date(1_700_000_000_000 + i * 1000).toISOString(),
    host: `web-${Math.floor(r() * 50)}`, level: r() < 0.9 ? 'info' : 'error', status: r() < 0.95 ? 200 : 503,
    bytes: Math.floor(r() * 100_000), latency_ms: Math.round(r() * 100_000) / 100, path: `/api/v1/items/${Math.floor(r() * 10_000)}`,
    user: { id: Math.floor(r() * 1e6), agent: 'Mozilla/5.0 (X11; Linux x86_64)' }, tags: ['prod', `zone-${Math.floor(r() * 4)}`],
    message: message.trim(),
  });
}

/** A `_bulk` body of `n` index actions with ids `first..first+n-1` (or auto-generated ids). */
export function bulkBody(first: number, n: number, r: () => number, autoIds = false): string {
  let out = '';
  for (let i = first; i < first + n; i++) out += `${autoIds ? '{"index":{}}' : `{"index":{"_id":"${i}"}}`}\n${makeDoc(i, r)}\n`;
  return out;
}
