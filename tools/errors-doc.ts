/**
 * Writes docs/errors.md from the engine's error registry (`src/engine/errors.ts`), so the list of codes in
 * the docs cannot drift from the code; `test/architecture/errors-doc.test.ts` fails when it is stale.
 *
 *   node --import tsx tools/errors-doc.ts        # rewrite docs/errors.md
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERRORS } from '../src/engine/errors.ts';

const AREAS: [string, string][] = [
  ['DOC_', 'documents (Elasticsearch API)'],
  ['SEARCH_', 'search'],
  ['TSDB_', 'metrics storage'],
  ['SCRAPE_', 'scraping'],
  ['PROMQL_', 'PromQL'],
  ['WF_', 'workflow'],
];

export function renderErrorsDoc(): string {
  const lines = [
    '# Engine error codes',
    '',
    'Generated from `src/engine/errors.ts` by `node --import tsx tools/errors-doc.ts`; do not edit by hand.',
    'The engine throws these codes; only `src/server` maps them to a wire envelope (Elasticsearch `type` and',
    'status, Prometheus `errorType`, the workflow `error` text). `%s` marks where details are filled in.',
    '',
    '| code | area | message template |',
    '|---|---|---|',
  ];
  for (const [code, template] of Object.entries(ERRORS)) {
    const area = AREAS.find(([prefix]) => code.startsWith(prefix))?.[1] ?? 'generic';
    lines.push(`| \`${code}\` | ${area} | ${template.replace(/\|/g, '\\|')} |`);
  }
  return lines.join('\n') + '\n';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(new URL('../docs/errors.md', import.meta.url), renderErrorsDoc());
}
