/** Runs every search HTTP case file in test/search/cases against one real server (format: test/es/yaml-runner.ts). */
import { after, before, describe, test } from 'node:test';
import { readdirSync, readFileSync } from 'node:fs';
import { startServer, type TestServer } from '../support/server.ts';
import { loadCases, runCase, wipe } from '../es/yaml-runner.ts';

const dir = new URL('./cases/', import.meta.url);
let s: TestServer;
before(async () => { s = await startServer({ services: ['documents'], workers: 2 }); });
after(async () => { await s?.destroy(); });

for (const file of readdirSync(dir).filter((f) => f.endsWith('.yml')).sort()) {
  describe(file, () => {
    for (const [name, steps] of loadCases(readFileSync(new URL(file, dir), 'utf8'))) {
      test(name, async () => {
        await wipe(s.esUrl);
        await runCase(s.esUrl, name, steps);
      });
    }
  });
}
