/** Tasks every worker answers whatever services are on: liveness and the figures `/metrics` shows. */
import type { TaskSubset } from './protocol.ts';
import { walThreadTotals } from '../engine/wal/index.ts';
import { documentsFigures } from './documents-figures.ts';

export const coreTasks = {
  'core.ping': (args) => args?.echo ?? 'pong',
  'core.stats': () => {
    const m = process.memoryUsage();
    return { wal: walThreadTotals(), heapUsedBytes: m.heapUsed, heapTotalBytes: m.heapTotal, arrayBuffersBytes: m.arrayBuffers, documents: documentsFigures() };
  },
  // Used by tests to prove a crashed worker is reported and replaced.
  'core.crash': (args, ctx) => {
    if (!ctx.options.allowCrashTask) throw new Error('core.crash is only enabled in tests');
    setImmediate(() => { throw new Error(args?.message ?? 'crash requested'); });
    return new Promise<never>(() => {});
  },
} satisfies TaskSubset;
