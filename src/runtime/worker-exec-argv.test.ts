/**
 * `optionsForWorkers`: a worker thread gets the per-thread options of the command line and none of the V8 or
 * per-process ones, which make `new Worker` throw. Each case's result is started as a real Worker.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { optionsForWorkers } from './worker-exec-argv.ts';
import cases from './cases/worker-exec-argv.json' with { type: 'json' };

/** Starts a worker with `execArgv` and resolves once it exited (throws as `new Worker` does). */
function runWorker(execArgv: string[]): Promise<number> {
  const w = new Worker('0', { eval: true, execArgv });
  return new Promise((resolve, reject) => { w.once('error', reject); w.once('exit', resolve); });
}

for (const c of cases) {
  test(`worker options of ${JSON.stringify(c.parent)}: ${JSON.stringify(c.workers)}`, async () => {
    assert.deepEqual(optionsForWorkers(c.parent), c.workers);
    // The cases' files (`-r ./hook.cjs`) and directories exist for the worker that is started.
    const dir = mkdtempSync(join(tmpdir(), 'tessera-worker-argv-'));
    const cwd = process.cwd();
    try {
      process.chdir(dir);
      writeFileSync('hook.cjs', '');
      const workers = c.workers.map((a) => (a === '/tmp/prof' ? join(dir, 'prof') : a));
      assert.equal(await runWorker(workers), 0);
    } finally {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('a Worker given the V8 options themselves refuses to start (what the filter is for)', () => {
  assert.throws(() => new Worker('0', { eval: true, execArgv: ['--max-old-space-size=4096'] }), { code: 'ERR_WORKER_INVALID_EXEC_ARGV' });
});
