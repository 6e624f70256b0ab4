/**
 * The op table of the shard worker: every task module registers its handlers here under a
 * `<area>.<op>` name. Keep one import and one spread per area; the `TaskTable` type makes a missing or
 * unknown operation a compile error.
 */
import type { TaskTable } from './protocol.ts';
import { coreTasks } from './core-tasks.ts';
import { docsTasks } from './docs-tasks.ts';
import { searchTasks } from './search-tasks.ts';
import { tsdbTasks } from './tsdb-tasks.ts';
import { promqlTasks } from './promql-tasks.ts';
import { rulesTasks } from './rules-tasks.ts';

export const TASKS: TaskTable = {
  ...coreTasks,
  ...docsTasks,
  ...searchTasks,
  ...tsdbTasks,
  ...promqlTasks,
  ...rulesTasks,
};
