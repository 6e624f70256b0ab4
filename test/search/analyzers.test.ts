/** Analyzer token tables (test/search/cases/analyzers.yml): terms, UTF-16 offsets, types and positions. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { AnalyzerRegistry } from '../../src/engine/analysis/analyzers.ts';
import { TokenBuf } from '../../src/engine/analysis/token-buf.ts';

interface Case { analyzer: string; text: string; settings?: Record<string, unknown>; tokens: [string, number, number, string?, number?][] }
const cases = parse(readFileSync(new URL('./cases/analyzers.yml', import.meta.url), 'utf8')) as Case[];

for (const c of cases) {
  test(`${c.analyzer}: ${c.text}`, () => {
    const a = new AnalyzerRegistry(c.settings ?? {}).get(c.analyzer);
    assert.ok(a, `analyzer ${c.analyzer}`);
    const buf = new TokenBuf();
    a.analyze(c.text, buf);
    const got = buf.toTokens();
    assert.deepEqual(got.map((t) => t.token), c.tokens.map((t) => String(t[0])));
    c.tokens.forEach((want, i) => {
      assert.equal(got[i].start_offset, want[1], `start of ${want[0]}`);
      assert.equal(got[i].end_offset, want[2], `end of ${want[0]}`);
      if (want[3] !== undefined) assert.equal(got[i].type, want[3], `type of ${want[0]}`);
      if (want[4] !== undefined) assert.equal(got[i].position, want[4], `position of ${want[0]}`);
      assert.equal(c.text.slice(got[i].start_offset, got[i].end_offset).length, got[i].end_offset - got[i].start_offset);
    });
  });
}

test('standard splits tokens longer than 255 characters', () => {
  const a = new AnalyzerRegistry().get('standard')!;
  const terms = a.terms('x'.repeat(300));
  assert.deepEqual(terms.map((t) => t.length), [255, 45]);
});
