/**
 * Runs one test file the way ES's ESClientYamlSuiteTestCase does: for each test, a fresh stash, the
 * `setup` section, the test's steps, the `teardown` section, then a wipe of the cluster. A `skip` at the
 * head of `setup` skips the whole file; one at the head of a test skips that test.
 */
import type { ApiResolver } from './api-resolver.ts';
import { Executor, NotApplicable } from './executor.ts';
import { skipReason } from './skip.ts';
import { Stash } from './stash.ts';
import type { TestSuite } from './suite.ts';
import { wipeCluster } from './wipe.ts';

export interface TestOutcome { name: string; status: 'pass' | 'fail' | 'skip'; detail: string }

export async function runSuite(base: string, suite: TestSuite, apis: ApiResolver): Promise<TestOutcome[]> {
  const fileSkip = skipReason(suite.setup);
  if (fileSkip) return suite.tests.map((t) => ({ name: t.name, status: 'skip', detail: fileSkip }));
  const out: TestOutcome[] = [];
  for (const t of suite.tests) {
    const skip = skipReason(t.steps);
    if (skip) { out.push({ name: t.name, status: 'skip', detail: skip }); continue; }
    const stash = new Stash();
    const ex = new Executor(base, apis, stash);
    try {
      await ex.run(suite.setup).catch((e: Error) => { e.message = `setup ${e.message}`; throw e; });
      await ex.run(t.steps);
      out.push({ name: t.name, status: 'pass', detail: '' });
    } catch (e) {
      out.push({ name: t.name, status: e instanceof NotApplicable ? 'skip' : 'fail', detail: (e as Error).message });
    } finally {
      await ex.run(suite.teardown).catch(() => undefined);
      await wipeCluster(base);
    }
  }
  return out;
}
