import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERRORS } from '../../src/engine/errors.ts';
import { renderErrorsDoc } from '../../tools/errors-doc.ts';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

test('docs/errors.md lists exactly the codes of the registry, in order', () => {
  const documented = [...doc.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual(documented, Object.keys(ERRORS));
});

test('docs/errors.md is what tools/errors-doc.ts generates (rerun it after changing the registry)', () => {
  assert.equal(doc, renderErrorsDoc());
});
