/** Table tests for relabelling and its config validation (`cases/relabel.yml`). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { parseRelabelRule, relabel } from '../../src/engine/scrape/relabel.ts';

interface Case { name: string; input?: Record<string, string>; rules: unknown[]; want?: Record<string, string> | null; error?: string }

const cases = parse(readFileSync(new URL('./cases/relabel.yml', import.meta.url), 'utf8')) as Case[];

test('relabel case file loaded', () => assert.ok(cases.length >= 25));

for (const c of cases) {
  test(`relabel: ${c.name}`, () => {
    if (c.error) {
      assert.throws(() => c.rules.map(parseRelabelRule), (e: Error) => e.message.includes(c.error!) || assert.fail(e.message));
      return;
    }
    const rules = c.rules.map(parseRelabelRule);
    const input = Object.entries(c.input ?? {}).map(([name, value]) => ({ name, value: String(value) }));
    const got = relabel(input, rules);
    if (c.want === null) { assert.equal(got, null); return; }
    assert.ok(got, 'dropped unexpectedly');
    const want = Object.entries(c.want!).map(([name, value]) => ({ name, value: String(value) }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    assert.deepEqual(got, want);
  });
}
