/**
 * Every constant in src/engine/codec/format-ids.ts is documented in docs/format.md: its name appears there,
 * string values (file and database names, keys) appear verbatim, and magic numbers appear as 0x-hex.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as ids from '../../src/engine/codec/format-ids.ts';

const doc = readFileSync(new URL('../../docs/format.md', import.meta.url), 'utf8');
const docUpper = doc.toUpperCase();

test('format-ids.ts exports constants to check', () => {
  assert.ok(Object.keys(ids).length >= 10);
});

for (const [name, value] of Object.entries(ids)) {
  test(`${name} is documented in docs/format.md`, () => {
    assert.ok(doc.includes(name), `docs/format.md does not mention ${name}`);
    if (typeof value === 'string') {
      assert.ok(doc.includes(value), `${name} value "${value}" is not in docs/format.md`);
    } else if (/MAGIC$/.test(name)) {
      const hex = `0X${(value as number).toString(16).toUpperCase().padStart(8, '0')}`;
      assert.ok(docUpper.includes(hex), `${name} (${hex}) is not in docs/format.md`);
    }
  });
}

test('every "## " section of docs/format.md after the conventions has a version and a changelog', () => {
  const sections = doc.split(/^## /m).slice(1).filter((s) => !s.startsWith('Conventions'));
  assert.ok(sections.length >= 4);
  for (const s of sections) {
    const title = s.split('\n')[0];
    assert.match(s, /^Version: \d+/m, `section "${title}" has no "Version:" line`);
    assert.match(s, /^### Versions$/m, `section "${title}" has no "### Versions" changelog`);
  }
});
