/**
 * The op table of the shard worker: every task module registers its handlers here under a
 * `<area>.<op>` name. Keep one import and one spread per area; the `Complete` check below makes a missing or
 * unknown operation a compile error.
 *
 * The documents areas (`docs.*`, `search.*`) are imported on a worker's first document call, not when the
 * worker starts: their engine code is ~2.4 MB of V8 heap per worker that a node without the documents
 * service never uses. `loadDocumentTasks` adds them to `TASKS`; shard.ts calls it for an op it does not
 * have yet.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { TaskTable } from './protocol.ts';
import { coreTasks } from './core-tasks.ts';
import type { docsTasks } from './docs-tasks.ts';
import type { searchTasks } from './search-tasks.ts';
import { tsdbTasks } from './tsdb-tasks.ts';
import { promqlTasks } from './promql-tasks.ts';
import { rulesTasks } from './rules-tasks.ts';

export const TASKS: Partial<TaskTable> = {
  ...coreTasks,
  ...tsdbTasks,
  ...promqlTasks,
  ...rulesTasks,
};

// Compile-time only: the static areas and the lazily loaded ones together cover every op.
type Complete<T extends TaskTable> = T;
export type AllTasks = Complete<typeof coreTasks & typeof docsTasks & typeof searchTasks & typeof tsdbTasks & typeof promqlTasks & typeof rulesTasks>;

/** Op name prefixes served by the lazily loaded areas. */
const LAZY_PREFIXES = ['docs.', 'search.'];

let loading: Promise<void> | null = null;

/** True when `op` belongs to an area `loadDocumentTasks` adds. */
export function isLazyOp(op: string): boolean {
  for (const p of LAZY_PREFIXES) if (op.startsWith(p)) return true;
  return false;
}

/** Imports the documents areas into `TASKS` (once; concurrent callers share the import). */
export function loadDocumentTasks(): Promise<void> {
  loading ??= Promise.all([importArea<typeof import('./docs-tasks.ts')>(new URL('./docs-tasks.ts', import.meta.url)),
    importArea<typeof import('./search-tasks.ts')>(new URL('./search-tasks.ts', import.meta.url))]).then(([d, s]) => {
    Object.assign(TASKS, d.docsTasks, s.searchTasks);
  });
  return loading;
}

/**
 * `import(url)`, or `require` where the worker's modules were loaded by `require`: run from the
 * TypeScript sources, Piscina loads the worker file with `require` (tsx compiles the graph to CommonJS), and
 * in a worker thread tsx's ESM hooks do not see a later `import()` (ERR_UNKNOWN_FILE_EXTENSION on Node 20).
 * `require` then reaches the same module instances as the rest of the worker. The compiled build is ESM
 * throughout and takes the `import()`; there the areas are entries of their own (scripts/build.mjs bundles
 * what a `new URL('….ts', import.meta.url)` names), beside the worker's bundle.
 */
async function importArea<T>(url: URL): Promise<T> {
  try {
    return (await import(url.href)) as T;
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;
    return createRequire(import.meta.url)(fileURLToPath(url)) as T;
  }
}
