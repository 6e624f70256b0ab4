/**
 * The only module that imports Piscina. One Piscina instance per shard worker (min = max = 1 thread) so a
 * call can be routed to the thread that owns its shard. Calls made for one worker during one event-loop
 * turn are coalesced into a single task: a worker hop costs more than a whole uWS request, so one task per
 * request would cap throughput far below the HTTP layer's.
 */
import { Piscina } from 'piscina';
import { cpus } from 'node:os';
import { packWithViews, transferList, unpackWithViews } from '../engine/codec/msgpack.ts';
import { EngineError, fromWire, OverloadedError, formatMessage } from '../engine/errors.ts';
import type { BatchMessage, CallResult, OpArgs, OpName, OpResult, TaskCall, WorkerInit, WorkerTransport } from '../workers/protocol.ts';

export interface ShardPoolOptions {
  workers: number;
  dataDir: string;
  options: Record<string, unknown>;
  /** Calls allowed in flight per worker before new ones are refused with OverloadedError. */
  maxPendingPerWorker?: number;
  /** Called when a worker thread dies; its in-flight calls have already been failed. */
  onWorkerError?: (workerId: number, err: unknown) => void;
}

interface Pending { call: TaskCall; resolve: (v: any) => void; reject: (e: unknown) => void }

class WorkerLane {
  readonly piscina: Piscina;
  queued: Pending[] = [];
  inFlight = 0;
  scheduled = false;
  constructor(piscina: Piscina) { this.piscina = piscina; }
}

const WORKER_FILE = new URL('../workers/shard.ts', import.meta.url).href;

/**
 * Worker threads load the TypeScript sources too. When the main thread got tsx through `--import` the
 * flag is inherited; when `bin/tessera` registered it in-process, workers need it passed explicitly.
 */
export function workerExecArgv(): string[] {
  const hasTsx = process.execArgv.some((a) => a.includes('tsx'));
  return hasTsx ? process.execArgv : [...process.execArgv, '--import', import.meta.resolve('tsx')];
}

export class ShardPool implements WorkerTransport {
  private readonly lanes: WorkerLane[] = [];
  private readonly maxPending: number;
  private readonly onWorkerError?: (workerId: number, err: unknown) => void;

  constructor(opts: ShardPoolOptions) {
    const n = Math.max(1, opts.workers || cpus().length);
    this.maxPending = opts.maxPendingPerWorker ?? 50_000;
    this.onWorkerError = opts.onWorkerError;
    for (let i = 0; i < n; i++) {
      const init: WorkerInit = { workerId: i, workerCount: n, dataDir: opts.dataDir, options: opts.options };
      const piscina = new Piscina({
        filename: WORKER_FILE,
        minThreads: 1,
        maxThreads: 1,
        // Calls wait on fsync inside the worker; let later batches start meanwhile so appends group-commit.
        concurrentTasksPerWorker: 64,
        // Let an idle worker's event loop run (Piscina's default blocks it in Atomics.wait), so engine timers
        // in the worker (refresh intervals, flushes) fire without waiting for the next task.
        atomics: 'async',
        idleTimeout: Infinity,
        workerData: init,
        execArgv: workerExecArgv(),
      });
      // A thread that dies fails its in-flight batch (see flush); Piscina starts a replacement.
      piscina.on('error', (err: unknown) => this.onWorkerError?.(i, err));
      this.lanes.push(new WorkerLane(piscina));
    }
  }

  get size(): number { return this.lanes.length; }

  /** Calls queued or running on worker `workerId` (exported as a metric). */
  depth(workerId: number): number {
    const lane = this.lanes[workerId];
    return lane.inFlight + lane.queued.length;
  }

  /** Runs `op` on worker `workerId`; rejects with the engine error the worker threw. */
  call<K extends OpName>(workerId: number, op: K, args: OpArgs<K>): Promise<OpResult<K>> {
    const lane = this.lanes[workerId];
    if (lane.inFlight + lane.queued.length >= this.maxPending) {
      return Promise.reject(new OverloadedError('OVERLOADED', formatMessage('OVERLOADED', [this.maxPending]), { workerId }));
    }
    return new Promise<OpResult<K>>((resolve, reject) => {
      lane.queued.push({ call: { op, args }, resolve, reject });
      if (!lane.scheduled) {
        lane.scheduled = true;
        setImmediate(() => this.flush(workerId));
      }
    });
  }

  /** Runs `op` on every worker; results in worker order. */
  broadcast<K extends OpName>(op: K, args: OpArgs<K>): Promise<OpResult<K>[]> {
    const out: Promise<OpResult<K>>[] = [];
    for (let i = 0; i < this.lanes.length; i++) out.push(this.call(i, op, args));
    return Promise.all(out);
  }

  private flush(workerId: number): void {
    const lane = this.lanes[workerId];
    lane.scheduled = false;
    const batch = lane.queued;
    if (batch.length === 0) return;
    lane.queued = [];
    lane.inFlight += batch.length;
    const calls = new Array<TaskCall>(batch.length);
    for (let i = 0; i < batch.length; i++) calls[i] = batch[i].call;
    // The bytes (and any out-of-band typed arrays) are transferred, not cloned.
    const message = packWithViews(calls);
    lane.piscina.run(message, { transferList: transferList(message) }).then(
      (reply: BatchMessage) => {
        lane.inFlight -= batch.length;
        const results = unpackWithViews<CallResult[]>(reply);
        for (let i = 0; i < batch.length; i++) {
          const r = results[i];
          if (r.ok) batch[i].resolve(r.value);
          else batch[i].reject(fromWire(r.error));
        }
      },
      (err: unknown) => {
        lane.inFlight -= batch.length;
        const e = new EngineError('WORKER_CRASHED', formatMessage('WORKER_CRASHED', [workerId, (err as Error)?.message ?? err]), { workerId });
        for (const p of batch) p.reject(e);
        this.onWorkerError?.(workerId, err);
      },
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((l) => l.piscina.close()));
  }
}
