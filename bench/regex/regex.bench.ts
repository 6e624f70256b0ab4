/**
 * User-supplied regexes (src/engine/regex): RE2 (re2js) against V8's backtracking RegExp.
 *
 * Measured, per whole-value match:
 *  - the pathological `(a|aa)*b` against a run of `a`s (the regex bomb of issue 16): RE2 at 46 and 4,096
 *    characters; the backtracking RegExp at 24 characters only (it grows ×1.6 per extra character: about a
 *    second at 38, a quarter of a minute at 46, so it is not run there);
 *  - label-matcher shapes on realistic values: a literal alternation (answered by the set shortcut), a
 *    prefix `api-.*`, and a class-heavy `[a-z]+-[0-9]{2,4}`, RE2 against RegExp;
 *  - a Lucene `regexp` query pattern over 1,000 seeded keyword terms.
 * Data: fixed strings and seeded (mulberry32, seed 7) terms; compilation happens outside the timed functions.
 *
 * Run: node --import tsx bench/regex/regex.bench.ts   (a few seconds; `--quick` shortens each task)
 */
import { Bench } from 'tinybench';
import { compileGoRegex, compileLuceneRegex, goRegexPredicate } from '../../src/engine/regex/index.ts';
import { mulberry32 } from '../support/mulberry32.ts';

const quick = process.argv.includes('--quick');
const bench = new Bench({ time: quick ? 100 : 400, warmupTime: 50 });
let sink = 0;

const bomb = compileGoRegex('(a|aa)*b');
const bombJs = /^(?:(a|aa)*b)$/;
const a24 = 'a'.repeat(24), a46 = 'a'.repeat(46), a4k = 'a'.repeat(4096);

bench
  .add('bomb (a|aa)*b, 46 chars, RE2', () => { sink += bomb.matchesWhole(a46) ? 1 : 0; })
  .add('bomb (a|aa)*b, 4096 chars, RE2', () => { sink += bomb.matchesWhole(a4k) ? 1 : 0; })
  .add('bomb (a|aa)*b, 24 chars, JS RegExp', () => { sink += bombJs.test(a24) ? 1 : 0; });

const values = ['api-server', 'api-gateway', 'node-exporter', 'prometheus', 'db-1234', 'cache-77'];
for (const [pattern, js] of [['api-server|node-exporter|db', /^(?:api-server|node-exporter|db)$/], ['api-.*', /^(?:api-.*)$/], ['[a-z]+-[0-9]{2,4}', /^(?:[a-z]+-[0-9]{2,4})$/]] as const) {
  const re2 = goRegexPredicate(pattern);
  bench
    .add(`matcher ${pattern}, 6 values, RE2`, () => { for (let i = 0; i < values.length; i++) sink += re2(values[i]) ? 1 : 0; })
    .add(`matcher ${pattern}, 6 values, JS RegExp`, () => { for (let i = 0; i < values.length; i++) sink += js.test(values[i]) ? 1 : 0; });
}

const rnd = mulberry32(7);
const terms = Array.from({ length: 1000 }, () => Math.floor(rnd() * 2 ** 40).toString(36));
const lucene = compileLuceneRegex('[a-m]+[0-9].*');
bench.add('lucene [a-m]+[0-9].*, 1000 terms, RE2', () => { for (let i = 0; i < terms.length; i++) sink += lucene(terms[i]) ? 1 : 0; });

await bench.run();
console.table(bench.tasks.map((t) => ({
  task: t.name,
  'mean µs': t.result && 'latency' in t.result ? (t.result.latency.mean * 1000).toFixed(2) : 'n/a',
  'ops/s': t.result && 'throughput' in t.result ? Math.round(t.result.throughput.mean) : 'n/a',
})));
if (sink < 0) console.log(sink);
