/**
 * One upstream test file: its `setup` and `teardown` sections and its named tests, each a list of steps
 * (`do`, `match`, `set`, ...). A file is a YAML stream; `setup`/`teardown` may sit in any document.
 */
import { parseAllDocuments } from 'yaml';

export type Step = Record<string, any>;
export interface TestSuite { file: string; setup: Step[]; teardown: Step[]; tests: { name: string; steps: Step[] }[] }

export function parseSuite(file: string, text: string): TestSuite {
  const suite: TestSuite = { file, setup: [], teardown: [], tests: [] };
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new Error(`YAML: ${doc.errors[0].message}`);
    const v = doc.toJS({ maxAliasCount: -1 }) as Record<string, Step[]> | null;
    if (!v) continue;
    for (const [name, steps] of Object.entries(v)) {
      if (name === 'setup') suite.setup = steps ?? [];
      else if (name === 'teardown') suite.teardown = steps ?? [];
      else suite.tests.push({ name, steps: steps ?? [] });
    }
  }
  return suite;
}
