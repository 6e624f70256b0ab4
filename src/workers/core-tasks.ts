/** Tasks every worker answers whatever services are on: liveness and memory figures for `/metrics`. */
import type { TaskTable } from './protocol.ts';

export const coreTasks: TaskTable = {
  'core.ping': (args: { echo?: unknown }) => args?.echo ?? 'pong',
  'core.memory': () => process.memoryUsage(),
  // Used by tests to prove a crashed worker is reported and replaced.
  'core.crash': (args: { message?: string }, ctx) => {
    if (!ctx.options.allowCrashTask) throw new Error('core.crash is only enabled in tests');
    setImmediate(() => { throw new Error(args?.message ?? 'crash requested'); });
    return new Promise(() => {});
  },
};
