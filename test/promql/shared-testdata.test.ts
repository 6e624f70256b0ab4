/**
 * Runs Prometheus 2.42's own PromQL test scripts (`../shared/promql-testdata/*.test`, relative to the repo root)
 * through our runner and reports the pass counts. Skips with a message when the folder is absent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runScript } from './runner.ts';

const dir = join(process.cwd(), '..', 'shared', 'promql-testdata');
const present = existsSync(dir);

test('Prometheus 2.42 test scripts', { skip: present ? false : `${dir} is absent` }, () => {
  let passed = 0, failed = 0, skipped = 0;
  const failures: string[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.test')).sort()) {
    const r = runScript(readFileSync(join(dir, f), 'utf8'));
    passed += r.passed; failed += r.failed; skipped += r.skipped;
    console.log(`${f}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped (native histograms)`);
    for (const c of r.cases) if (!c.ok && !c.skipped) failures.push(`${f}:${c.line} ${c.expr}: ${c.message}`);
  }
  console.log(`shared promql-testdata: ${passed} eval cases passed, ${failed} failed, ${skipped} skipped`);
  assert.ok(passed > 0, 'no eval case ran');
  assert.deepEqual(failures, []);
});
