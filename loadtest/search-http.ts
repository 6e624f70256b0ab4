/**
 * Search over HTTP against a real Tessera child process (127.0.0.1 only): bulk-loads N generated documents
 * (argv[2], default 50,000; same Zipf generator shape as loadtest/search.ts, seed 2) into a 1-shard index,
 * then runs autocannon for 2 s per query kind (8 connections, no pipelining, 10 s in total): 2-term match OR,
 * 2-term match AND, match_phrase, bool with a range filter, terms aggregation. Prints req/s and p50/p99.
 *
 * Run: node --import tsx loadtest/search-http.ts [N]
 */
import autocannon from 'autocannon';
import { startServer } from '../test/support/server.ts';
import { mulberry32 } from '../bench/support/mulberry32.ts';

const N = Number(process.argv[2] ?? 50_000);
const VOCAB = 50_000;
const rnd = mulberry32(2);
const words = Array.from({ length: VOCAB }, (_, i) => `w${i.toString(36)}x`);
const cdf = new Float64Array(VOCAB);
{ let s = 0; for (let i = 0; i < VOCAB; i++) { s += 1 / Math.pow(i + 1, 1.07); cdf[i] = s; } for (let i = 0; i < VOCAB; i++) cdf[i] /= s; }
const zipf = (): number => { const u = rnd(); let lo = 0, hi = VOCAB - 1; while (lo < hi) { const m = (lo + hi) >> 1; if (cdf[m] < u) lo = m + 1; else hi = m; } return lo; };
const text = (min: number, max: number): string => Array.from({ length: min + Math.floor(rnd() * (max - min + 1)) }, () => words[zipf()]).join(' ');

const server = await startServer({ services: ['documents'], workers: 2 });
try {
  const es = server.esUrl;
  await fetch(`${es}/load`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings: { number_of_shards: 1, refresh_interval: -1 }, mappings: { _doc: { properties: { title: { type: 'text' }, body: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'long' }, d: { type: 'date' } } } } }) });
  const t0 = performance.now();
  for (let i = 0; i < N; i += 2000) {
    let lines = '';
    for (let j = i; j < Math.min(N, i + 2000); j++) {
      lines += `{"index":{"_id":"${j}"}}\n${JSON.stringify({ title: text(4, 10), body: text(20, 60), tag: `t${Math.floor(rnd() * 200)}`, n: Math.floor(rnd() * 1000), d: new Date(1_500_000_000_000 + Math.floor(rnd() * 3e10)).toISOString() })}\n`;
    }
    const r = await fetch(`${es}/load/_doc/_bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines });
    if (!r.ok) throw new Error(`bulk failed: ${r.status}`);
    await r.arrayBuffer();
  }
  await (await fetch(`${es}/load/_refresh`, { method: 'POST' })).arrayBuffer();
  console.log(`bulk-indexed ${N} docs over HTTP in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const a = words[300], b = words[700];
  const bodies: Record<string, unknown> = {
    'match OR (2 terms)': { query: { match: { body: `${a} ${b}` } } },
    'match AND (2 terms)': { query: { match: { body: { query: `${a} ${b}`, operator: 'and' } } } },
    'match_phrase': { query: { match_phrase: { body: `${words[0]} ${words[1]}` } } },
    'bool + range filter': { query: { bool: { must: { match: { body: a } }, filter: { range: { n: { gte: 100, lt: 600 } } } } } },
    'terms aggregation': { size: 0, query: { match: { body: a } }, aggs: { t: { terms: { field: 'tag' } } } },
  };
  for (const [name, body] of Object.entries(bodies)) {
    const r = await autocannon({ url: `${es}/load/_search`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), connections: 8, duration: 2 });
    console.log(`${name.padEnd(22)} ${Math.round(r.requests.average).toString().padStart(6)} req/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms   errors ${r.errors + r.non2xx}`);
  }
} finally {
  await server.destroy();
}
