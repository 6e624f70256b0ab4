/**
 * Runs Elasticsearch's own REST API YAML tests (rest-api-spec/test/**) against Tessera.
 *
 *   node --import tsx tools/es-rest-yaml/main.ts --tests /tmp/es68/test [--api /tmp/es68/api]
 *        [--url http://127.0.0.1:9200] [--filter mget/] [--json out.json]
 *
 * Without --url it starts a documents-only Tessera on free ports with a fresh data directory and stops it
 * at the end. The upstream files are read from outside the project (docs/es-rest-yaml.md says how to get
 * them); none are copied in. Prints one line per file (pass / fail with the first failing step / skipped
 * with the reason) and a summary per directory.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiResolver } from './api-resolver.ts';
import { fileResult, printDirectorySummary, type FileResult } from './report.ts';
import { runSuite } from './run-suite.ts';
import { parseSuite } from './suite.ts';
import { wipeCluster } from './wipe.ts';
import { startServer } from '../../test/support/server.ts';

function listTestFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listTestFiles(p));
    else if (/\.ya?ml$/.test(name)) out.push(p);
  }
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: {
    tests: { type: 'string' }, api: { type: 'string' }, url: { type: 'string' },
    filter: { type: 'string' }, json: { type: 'string' }, verbose: { type: 'boolean' },
  } });
  if (!values.tests) throw new Error('--tests DIR is required');
  const apis = new ApiResolver(values.api ?? null);
  const server = values.url ? null : await startServer({ services: ['documents'], workers: 2 });
  const base = (values.url ?? server!.esUrl).replace(/\/$/, '');
  const results: FileResult[] = [];
  try {
    await wipeCluster(base);
    for (const path of listTestFiles(values.tests)) {
      const rel = relative(values.tests, path);
      if (values.filter && !rel.includes(values.filter)) continue;
      let r: FileResult;
      try {
        const tests = await runSuite(base, parseSuite(rel, readFileSync(path, 'utf8')), apis);
        r = fileResult(rel, tests);
        if (values.verbose) for (const t of tests) if (t.status !== 'pass') console.log(`    ${t.status} [${t.name}] ${t.detail}`);
      } catch (e) {
        r = { file: rel, status: 'fail', pass: 0, fail: 1, skip: 0, detail: `cannot run: ${(e as Error).message}` };
      }
      results.push(r);
      console.log(`${r.status.toUpperCase().padEnd(4)} ${rel} (${r.pass} passed, ${r.fail} failed, ${r.skip} skipped)${r.detail ? ': ' + r.detail : ''}`);
    }
  } finally {
    await server?.destroy();
  }
  console.log('');
  printDirectorySummary(results);
  if (apis.fromClient.size) console.log(`\nAPIs resolved through the 6.8 JS client (no spec file given): ${[...apis.fromClient].sort().join(', ')}`);
  if (values.json) writeFileSync(values.json, JSON.stringify(results, null, 2));
}

main().catch((e) => { console.error(e); process.exit(1); });
