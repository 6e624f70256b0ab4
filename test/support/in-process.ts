/**
 * Stand-ins for unit-testing route modules without threads: a pool that runs worker tasks on this thread
 * (through the same msgpack and error round trips as the real boundary), and a select over a MemQuerier.
 */
import { TASKS } from '../../src/workers/tasks.ts';
import type { OpArgs, OpName, OpResult, WorkerTransport } from '../../src/workers/protocol.ts';
import { pack, unpack } from '../../src/engine/codec/msgpack.ts';
import { fromWire, toWire } from '../../src/engine/errors.ts';
import type { MemQuerier } from '../../src/engine/tsdb/mem-querier.ts';
import { VAL_NONE, type FetchedSeries, type Matcher } from '../../src/engine/tsdb/api.ts';

export function inProcessPool(size = 2): WorkerTransport {
  return {
    size,
    async call<K extends OpName>(_w: number, op: K, args: OpArgs<K>): Promise<OpResult<K>> {
      const handler = TASKS[op] as (a: OpArgs<K>, ctx: { workerId: number; workerCount: number; dataDir: string; options: Record<string, unknown> }) => unknown;
      try {
        return unpack(pack(await handler(unpack(pack(args)), { workerId: 0, workerCount: size, dataDir: '', options: {} })));
      } catch (e) { throw fromWire(unpack(pack(toWire(e)))); }
    },
  };
}

/** Every series matching `matchers` with its samples in `[mintMs, maxtMs]` (series with none included). */
export function selectWindow(db: MemQuerier, matchers: readonly Matcher[], mintMs: number, maxtMs: number): FetchedSeries[] {
  const set = db.select(true, null, matchers);
  const out: FetchedSeries[] = [];
  while (set.next()) {
    const s = set.at();
    const it = s.iterator(null);
    const t: number[] = [], v: number[] = [];
    while (it.next() !== VAL_NONE) if (it.t >= mintMs && it.t <= maxtMs) { t.push(it.t); v.push(it.v); }
    out.push({ labels: s.labels, t: Float64Array.from(t), v: Float64Array.from(v) });
  }
  return out;
}
