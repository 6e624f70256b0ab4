/**
 * The only module that imports Piscina. One Piscina instance per shard worker (min = max = 1 thread) so a
 * call can be routed to the thread that owns its shard. Calls made for one worker during one event-loop
 * turn are coalesced into a single task: a worker hop costs more than a whole uWS request, so one task per
 * request would cap throughput far below the HTTP layer's. Search calls are coalesced only with those made
 * before their caller yields (`flushesSoon`).
 */
import { Piscina } from 'piscina';
import { cpus } from 'node:os';
import { packMessage, packWithViews, transferList, unpack, unpackWithViews } from '../engine/codec/msgpack.ts';
import { SpscProducer, SpscRing } from '../engine/queue/spsc-ring.ts';
import { createFetchBoardBuffer, FetchBoard, FetchBoardSlots } from '../engine/search/fetch-board.ts';
import { createLinkBuffers, readMessages, writeFrames, type LinkBuffers } from '../workers/ring-link.ts';
import { workerExecArgv } from '../runtime/worker-exec-argv.ts';
import { EngineError, fromWire, OverloadedError, formatMessage } from '../engine/errors.ts';
import { QUERY_CANCEL_WORD, QUERY_CONTROL_WORDS, QUERY_STARTED_WORD, STOP_WORDS } from '../workers/protocol.ts';
import type { BatchMessage, CallResult, OpArgs, OpName, OpResult, TaskCall, WorkerInit, WorkerTransport } from '../workers/protocol.ts';

export interface ShardPoolOptions {
  workers: number;
  dataDir: string;
  options: Record<string, unknown>;
  /** Bound of each worker's V8 young generation in bytes (Node's `resourceLimits.maxYoungGenerationSizeMb`); 0: V8's own. */
  youngGenerationBytes?: number;
  /** Calls allowed in flight per worker before new ones are refused with OverloadedError. */
  maxPendingPerWorker?: number;
  /** Called when a worker thread dies; its in-flight calls have already been failed. */
  onWorkerError?: (workerId: number, err: unknown) => void;
}

interface Pending { call: TaskCall; resolve: (v: any) => void; reject: (e: unknown) => void }

/**
 * Calls are batched per service class: a worker answers a batch only once every call in it has settled,
 * so a document GET coalesced with a long metrics select would wait for the select. Documents (and the
 * node-level core ops) and metrics get separate batches, so each class waits only on its own kind.
 */
const CLASS_DOCS = 0, CLASS_METRICS = 1, CLASSES = 2;

function classOf(op: string): number {
  return op.startsWith('tsdb.') || op.startsWith('promql.') || op.startsWith('rules.') ? CLASS_METRICS : CLASS_DOCS;
}

/**
 * Search calls leave as soon as the code that made them yields (a microtask), not an event-loop turn later: a
 * search's shard calls are made together, so they still share a batch per worker, and waiting for the turn to
 * gather other requests' calls cost a one-client search 50–80 µs (traced, docs/benchmarks.md) and gained it
 * nothing. Writes keep the turn: a bulk's throughput rests on many requests' items sharing a batch.
 */
function flushesSoon(op: string): boolean {
  return op.startsWith('search.');
}

/**
 * The main thread's end of a worker's ring link (workers/ring-link.ts): sends batches of document calls and
 * matches each reply to its batch by id.
 */
class LinkEnd {
  readonly buffers: LinkBuffers = createLinkBuffers();
  private readonly requests = new SpscProducer(SpscRing.attach(this.buffers.requests));
  private readonly replies = SpscRing.attach(this.buffers.replies);
  private readonly waiting = new Map<number, (reply: Uint8Array | Error) => void>();
  private nextId = 0;
  private whenIdle: (() => void) | null = null;

  constructor() {
    void readMessages(this.replies, (id, bytes) => this.settle(id, bytes));
  }

  /** Sends `bytes` (copied at once); `onReply` gets the reply's bytes, or the error that ended the link. */
  send(bytes: Uint8Array, onReply: (reply: Uint8Array | Error) => void): void {
    const id = (this.nextId = (this.nextId + 1) >>> 0);
    this.waiting.set(id, onReply);
    writeFrames(this.requests, id, bytes).catch((err: Error) => this.settle(id, err));
  }

  private settle(id: number, reply: Uint8Array | Error): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    w(reply);
    if (this.waiting.size === 0) this.whenIdle?.();
  }

  /** Resolves once no batch waits for its reply. */
  idle(): Promise<void> {
    return this.waiting.size === 0 ? Promise.resolve() : new Promise((resolve) => { this.whenIdle = resolve; });
  }

  /** Closes both rings (the worker's reading loop ends) and fails every batch still waiting with `err`. */
  close(err: Error): void {
    this.requests.ring.close();
    this.replies.close();
    for (const w of this.waiting.values()) w(err);
    this.waiting.clear();
  }
}

class WorkerLane {
  readonly piscina: Piscina;
  readonly queued: Pending[][] = [];
  readonly scheduled: boolean[] = [];
  /** A microtask flush is queued (flushesSoon), whether or not an event-loop turn's is too. */
  readonly scheduledSoon: boolean[] = [];
  inFlight = 0;
  /** Document batches go through the ring link once attached; metrics batches (and all, until then) through Piscina. */
  link: LinkEnd | null = null;
  constructor(piscina: Piscina, readonly stops: StopWords) {
    this.piscina = piscina;
    for (let c = 0; c < CLASSES; c++) { this.queued.push([]); this.scheduled.push(false); this.scheduledSoon.push(false); }
  }
  get queuedCount(): number { let n = 0; for (const q of this.queued) n += q.length; return n; }
}

/**
 * The main thread's end of a worker's stop words (WorkerInit.stopWords): a read that may be abandoned borrows
 * a word for its run, and setting it stops the read where the worker checks its deadline. Word 0 stops all.
 */
class StopWords {
  readonly buffer = new SharedArrayBuffer(STOP_WORDS * 4);
  private readonly words = new Int32Array(this.buffer);
  private readonly free: number[] = [];
  constructor() { for (let i = STOP_WORDS - 1; i >= 1; i--) this.free.push(i); }
  /** A cleared word of its own for a read, or 0 when all are lent (the read then stops only with the rest). */
  borrow(): number { return this.free.pop() ?? 0; }
  /** Back from a read that has ended (the worker no longer looks at it). */
  giveBack(slot: number): void { if (slot !== 0) { Atomics.store(this.words, slot, 0); this.free.push(slot); } }
  stop(slot: number): void { Atomics.store(this.words, slot, 1); }
}

const MB = 1024 * 1024;

/**
 * Piscina options bounding a thread's V8 young generation (`resourceLimits.maxYoungGenerationSizeMb`; V8 wants
 * at least 3 MB): V8 grows it up to 48 MB when a thread allocates fast (scrapes, bulk bodies, long queries),
 * resident memory that a collection empties but does not give back. 0 leaves V8's own bound.
 */
function youngGenerationLimit(bytes: number | undefined): { resourceLimits?: { maxYoungGenerationSizeMb: number } } {
  return bytes ? { resourceLimits: { maxYoungGenerationSizeMb: Math.max(3, Math.round(bytes / MB)) } } : {};
}

const WORKER_FILE = new URL('../workers/shard.ts', import.meta.url).href;

export class ShardPool implements WorkerTransport {
  private readonly lanes: WorkerLane[] = [];
  private readonly maxPending: number;
  private readonly onWorkerError?: (workerId: number, err: unknown) => void;
  private closing = false;
  /** One board for all workers: a search's shards may sit on any of them. */
  readonly fetchBoard = new FetchBoardSlots(new FetchBoard(createFetchBoardBuffer()));

  constructor(opts: ShardPoolOptions) {
    const n = Math.max(1, opts.workers || cpus().length);
    this.maxPending = opts.maxPendingPerWorker ?? 50_000;
    this.onWorkerError = opts.onWorkerError;
    for (let i = 0; i < n; i++) {
      const stops = new StopWords();
      const init: WorkerInit = { workerId: i, workerCount: n, dataDir: opts.dataDir, options: opts.options, stopWords: stops.buffer, fetchBoard: this.fetchBoard.board.buffer };
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
        ...youngGenerationLimit(opts.youngGenerationBytes),
      });
      // A thread that dies fails its in-flight batch (see flush); Piscina starts a replacement.
      piscina.on('error', (err: unknown) => this.onWorkerError?.(i, err));
      this.lanes.push(new WorkerLane(piscina, stops));
      this.attach(i);
    }
  }

  /**
   * Opens a ring link to worker `workerId`: its attach task stays pending while the link is open, and its
   * rejection means the thread died — the link's waiting batches then fail with WORKER_CRASHED, and a new link
   * is attached to the thread Piscina starts in its place.
   */
  private attach(workerId: number): void {
    const lane = this.lanes[workerId];
    const link = new LinkEnd();
    lane.link = link;
    const opened = Date.now();
    const ended = (err: unknown, crash: boolean): void => {
      link.close(crashed(workerId, (err as Error)?.message ?? err));
      if (lane.link === link) lane.link = null;
      if (this.closing) return;
      if (crash) this.onWorkerError?.(workerId, err);
      // A thread that dies as it starts would otherwise be re-attached in a tight loop.
      const retry = (): void => { if (!this.closing) this.attach(workerId); };
      if (Date.now() - opened < 1000) setTimeout(retry, 1000).unref(); else retry();
    };
    // The task ends by itself only when the link is closed (shutdown) or the worker's reading loop failed.
    lane.piscina.run({ link: link.buffers }).then(() => ended('link closed', false), (err: unknown) => ended(err, true));
  }

  get size(): number { return this.lanes.length; }

  /** Calls queued or running on worker `workerId` (exported as a metric). */
  depth(workerId: number): number {
    const lane = this.lanes[workerId];
    return lane.inFlight + lane.queuedCount;
  }

  /**
   * Runs `op` on worker `workerId`; rejects with the engine error the worker threw. A read given `signal`
   * (an op whose args take `stopSlot`) is stopped in the worker once the signal aborts.
   */
  call<K extends OpName>(workerId: number, op: K, args: OpArgs<K>, signal?: AbortSignal): Promise<OpResult<K>> {
    if (signal === undefined) return this.enqueue(workerId, op, args);
    if (signal.aborted) return Promise.reject(signal.reason);
    const stops = this.lanes[workerId].stops;
    const slot = stops.borrow();
    const onAbort = (): void => stops.stop(slot);
    if (slot !== 0) signal.addEventListener('abort', onAbort, { once: true });
    return this.enqueue(workerId, op, slot === 0 ? args : { ...args, stopSlot: slot }).finally(() => {
      signal.removeEventListener('abort', onAbort);
      stops.giveBack(slot);
    });
  }

  /** Stops every read in the workers, and those to come (shutdown). */
  stopReads(): void {
    for (const l of this.lanes) l.stops.stop(0);
  }

  private enqueue<K extends OpName>(workerId: number, op: K, args: OpArgs<K>): Promise<OpResult<K>> {
    const lane = this.lanes[workerId];
    if (lane.inFlight + lane.queuedCount >= this.maxPending) {
      return Promise.reject(new OverloadedError('OVERLOADED', formatMessage('OVERLOADED', [this.maxPending]), { workerId }));
    }
    const cls = classOf(op);
    return new Promise<OpResult<K>>((resolve, reject) => {
      lane.queued[cls].push({ call: { op, args }, resolve, reject });
      if (flushesSoon(op)) {
        // A turn's flush may be queued as well: it then finds the queue empty, or calls made after this one.
        if (!lane.scheduledSoon[cls]) {
          lane.scheduledSoon[cls] = true;
          queueMicrotask(() => { lane.scheduledSoon[cls] = false; this.flush(workerId, cls); });
        }
      } else if (!lane.scheduled[cls]) {
        lane.scheduled[cls] = true;
        setImmediate(() => this.flush(workerId, cls));
      }
    });
  }

  /** Runs `op` on every worker; results in worker order. */
  broadcast<K extends OpName>(op: K, args: OpArgs<K>): Promise<OpResult<K>[]> {
    const out: Promise<OpResult<K>>[] = [];
    for (let i = 0; i < this.lanes.length; i++) out.push(this.call(i, op, args));
    return Promise.all(out);
  }

  private flush(workerId: number, cls: number): void {
    const lane = this.lanes[workerId];
    lane.scheduled[cls] = false;
    const batch = lane.queued[cls];
    if (batch.length === 0) return;
    lane.queued[cls] = [];
    lane.inFlight += batch.length;
    const calls = new Array<TaskCall>(batch.length);
    for (let i = 0; i < batch.length; i++) calls[i] = batch[i].call;
    if (cls === CLASS_DOCS && lane.link) {
      lane.link.send(packMessage(calls), (reply) => {
        lane.inFlight -= batch.length;
        try {
          if (reply instanceof Error) throw reply;
          settle(batch, unpack<CallResult[]>(reply));
        } catch (err) {
          // Runs inside the link's reading loop: a reply that does not decode fails its batch, not the link.
          for (const p of batch) p.reject(err);
        }
      });
      return;
    }
    // The bytes (and any out-of-band typed arrays) are transferred, not cloned.
    const message = packWithViews(calls);
    lane.piscina.run(message, { transferList: transferList(message) }).then(
      (reply: BatchMessage) => {
        lane.inFlight -= batch.length;
        settle(batch, unpackWithViews<CallResult[]>(reply));
      },
      (err: unknown) => {
        lane.inFlight -= batch.length;
        const e = crashed(workerId, (err as Error)?.message ?? err);
        for (const p of batch) p.reject(e);
        this.onWorkerError?.(workerId, err);
      },
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((l) => l.link?.idle()));
    this.closing = true;
    for (const l of this.lanes) l.link?.close(new EngineError('WORKER_CRASHED', 'the shard pool is closing'));
    await Promise.all(this.lanes.map((l) => l.piscina.close()));
  }
}

function settle(batch: Pending[], results: CallResult[]): void {
  for (let i = 0; i < batch.length; i++) {
    const r = results[i];
    if (r.ok) batch[i].resolve(r.value);
    else batch[i].reject(fromWire(r.error));
  }
}

function crashed(workerId: number, cause: unknown): EngineError {
  return new EngineError('WORKER_CRASHED', formatMessage('WORKER_CRASHED', [workerId, cause]), { workerId });
}

const QUERY_WORKER_FILE = new URL('../workers/query.ts', import.meta.url).href;

/** How long a cancelled evaluation may run on before its thread is terminated (it should stop at once). */
const STOP_GRACE_MS = 250;

/**
 * Threads that evaluate PromQL queries, apart from the shard workers: evaluation needs only the series the
 * main thread fetched, and one long evaluation on a shard thread would stall every document call routed
 * there. One query per thread at a time. A cancelled query (client gone, deadline passed) is told to stop
 * through a shared word the evaluator checks; if it is still running `STOP_GRACE_MS` later (a loop without
 * a check), its thread is terminated and Piscina starts a replacement.
 *
 * A query cancelled before its thread took it is answered at once and its thread is left alone: Piscina
 * hands tasks to threads that are still loading (seconds on a loaded machine), and terminating one of those
 * threw its start-up away, so the next query waited for yet another thread to load and timed out too. The
 * thread, once loaded, sees the cancel word and drops the task without evaluating it.
 *
 * Nothing starts with the pool: a node without the metrics service never makes one. The metrics service starts
 * one thread with the node (`warm`, before `/-/ready` answers ready), so that the first query does not wait for
 * a thread to load its modules (seconds on a loaded machine, past short query timeouts); an idle query thread
 * holds about 15 MB of resident memory (its own V8 heap and module graph). One thread stays from then on.
 */
export class QueryPool {
  private piscina: Piscina | null = null;
  private closed = false;
  /** Threads that are up (Piscina's 'workerCreate'; thread ids are never reused within a process). */
  private readonly loaded = new Set<number>();
  /** The first thread's warm-up (`warm`), once asked for. */
  private warming: Promise<void> | null = null;

  /** `youngGenerationBytes`: as `ShardPoolOptions.youngGenerationBytes`, for each query thread. */
  constructor(readonly threads: number, private readonly youngGenerationBytes = 0) {}

  /** Threads for `--query.max-concurrency` queries at once: no more than there are cores to run them. */
  static threadsFor(maxConcurrency: number): number { return Math.min(maxConcurrency, cpus().length); }

  /** Whether a query thread was ever started (for tests). */
  get started(): boolean { return this.piscina !== null; }

  /** Query threads that are up (for tests). */
  get threadsUp(): number { return this.loaded.size; }

  /** Each running query thread's young generation bound in MB, as V8 reports it (for tests). */
  get youngGenerationMb(): number[] {
    return (this.piscina?.threads ?? []).map((w) => w.resourceLimits?.maxYoungGenerationSizeMb ?? 0);
  }

  /**
   * Starts the first query thread now; resolves once it has loaded its modules (or could not). Piscina's
   * 'workerCreate' comes before that (a thread imports its task module with its first task), so once the thread
   * is up it is given a task already cancelled, which it drops unevaluated. (A task queued before the thread is
   * up would make Piscina start a second thread for it.)
   */
  warm(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.warming) return this.warming;
    const piscina = this.pool();
    const up = this.loaded.size > 0 ? Promise.resolve() : new Promise<void>((resolve) => {
      piscina.once('workerCreate', () => resolve());
      piscina.once('error', () => resolve());
    });
    const control = new Int32Array(new SharedArrayBuffer(QUERY_CONTROL_WORDS * 4));
    Atomics.store(control, QUERY_CANCEL_WORD, 1);
    this.warming = up.then(() => piscina.run({ batch: packWithViews([]), control: control.buffer })).then(() => undefined, () => undefined);
    return this.warming;
  }

  private pool(): Piscina {
    if (this.piscina) return this.piscina;
    // Piscina's own balancer hands a task to any idle thread, one still loading its modules too: the task then
    // waits out that start-up while a loaded thread may be free.
    const loaded = this.loaded;
    const piscina = new Piscina({
      filename: QUERY_WORKER_FILE,
      minThreads: 1,
      maxThreads: Math.max(1, this.threads),
      concurrentTasksPerWorker: 1,
      idleTimeout: 60_000,
      // As for shard workers: Piscina's default blocks an idle thread in Atomics.wait, where its timers never
      // fire, and the idle collector (query.ts) could not free the last query's transferred samples.
      atomics: 'async',
      execArgv: workerExecArgv(),
      // A long range query allocates its selection's decode arrays and its JSON in the young generation, which
      // V8 then grows to its 48 MB bound in each query thread and keeps: resident memory after the query that
      // the split (two threads per query) doubled (docs/benchmarks.md, issue 11).
      ...youngGenerationLimit(this.youngGenerationBytes),
      loadBalancer: (_task, threads) => {
        for (const t of threads) if (t.currentUsage === 0 && loaded.has(t.id)) return t;
        return null;
      },
    });
    piscina.on('workerCreate', (t: { id: number }) => loaded.add(t.id));
    piscina.on('workerDestroy', (t: { id: number }) => loaded.delete(t.id));
    this.piscina = piscina;
    return piscina;
  }

  /**
   * Runs `op` on a query thread; rejects with `signal.reason` once the signal aborts (at once if no thread
   * has taken the call yet). `onThreadFree` is called once, when no thread holds the call any more — later
   * than the answer when a thread still has to drop or stop it.
   */
  call<K extends OpName>(op: K, args: OpArgs<K>, signal: AbortSignal, onThreadFree: () => void = () => {}): Promise<OpResult<K>> {
    if (this.closed) { onThreadFree(); return Promise.reject(new Error('query threads are closed')); }
    const control = new Int32Array(new SharedArrayBuffer(QUERY_CONTROL_WORDS * 4));
    const kill = new AbortController();
    let task: Promise<BatchMessage>;
    try {
      const batch = packWithViews([{ op, args }]);
      task = this.pool().run({ batch, control: control.buffer }, { transferList: transferList(batch), signal: kill.signal });
    } catch (err) {
      onThreadFree();
      return Promise.reject(err);
    }
    return new Promise<OpResult<K>>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        Atomics.store(control, QUERY_CANCEL_WORD, 1);
        // Not taken yet: the thread will drop it (see runQuery). Taken: the evaluator should stop at its next check.
        if (Atomics.load(control, QUERY_STARTED_WORD) === 0) reject(signal.reason);
        else timer = setTimeout(() => kill.abort(), STOP_GRACE_MS);
      };
      task.then((reply) => {
        const [r] = unpackWithViews<CallResult[]>(reply);
        if (r.ok) resolve(r.value as OpResult<K>);
        else throw fromWire(r.error);
      }).catch((err: unknown) => {
        // The reason names the phase and cause (timed out / canceled) whatever the thread answered.
        reject(signal.aborted ? signal.reason : err);
      }).finally(() => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        onThreadFree();
      });
      if (signal.aborted) onAbort(); else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  close(): Promise<void> {
    this.closed = true;
    return this.piscina ? this.piscina.close({ force: true }) : Promise.resolve();
  }
}
