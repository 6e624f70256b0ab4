/** Runs our own PromQL test scripts under `test/promql/scripts/` (same format as Prometheus's). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runScript } from './runner.ts';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'scripts');

for (const f of readdirSync(dir).filter((n) => n.endsWith('.test')).sort()) {
  test(`script ${f}`, () => {
    const r = runScript(readFileSync(join(dir, f), 'utf8'));
    console.log(`${f}: ${r.passed} passed, ${r.failed} failed`);
    const failures = r.cases.filter((c) => !c.ok).map((c) => `line ${c.line} ${c.expr}: ${c.message}`);
    assert.deepEqual(failures, []);
    assert.ok(r.passed > 0);
  });
}
