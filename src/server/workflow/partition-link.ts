/**
 * The main thread's end of one workflow engine thread (one partition): the producer end of its request
 * ring, the worker, and the correlation of postMessage replies with callers. Requests to one partition are
 * written to its ring in call order and processed in that order (per-contact order).
 *
 * The requests of one event-loop turn go out as one ring message, written when the turn's I/O callbacks
 * are done (`setImmediate`): under load uWS hands several requests to one turn, and a message per request
 * cost an encoder call and, whenever the engine thread had gone to sleep, a cross-thread wake-up each.
 */
import { Worker } from 'node:worker_threads';
import { fromWire, InternalError, type EngineError } from '../../engine/errors.ts';
import { packMessage, unpack } from '../../engine/codec/msgpack.ts';
import { SpscProducer, SpscRing } from '../../engine/queue/spsc-ring.ts';
import type { WorkflowReply, WorkflowRequest, WorkflowWorkerInit } from '../../workers/workflow-protocol.ts';
import type { WorkflowArgs, WorkflowOpName, WorkflowResult } from '../../workers/protocol.ts';
import type { Logger } from '../context.ts';
import { RUNNING_COMPILED } from '../../runtime/running-compiled.ts';
import { optionsForWorkers } from '../../runtime/worker-exec-argv.ts';

const WORKER_FILE = new URL('../../workers/workflow.ts', import.meta.url);
/** Per partition; a request is a few hundred bytes (a 1,000-event batch about 100 KB), and every touched page stays resident. */
const RING_BYTES = 2 * 1024 * 1024;

interface Pending { resolve(v: unknown): void; reject(e: EngineError): void }

/** Pause before restarting a partition whose commit failed on a full disk (again while it stays full). */
const RESTART_DELAY_MS = 250;

export class PartitionLink {
  private ring = SpscRing.create(RING_BYTES);
  private producer = new SpscProducer(this.ring);
  private readonly pending = new Map<number, Pending>();
  private worker!: Worker;
  private nextId = 1;
  private dead: EngineError | null = null;
  private stopping = false;
  /** Set while a thread that ended on a full disk is replaced (calls meanwhile get its DISK_FULL error). */
  private restarting: EngineError | null = null;
  private init: Omit<WorkflowWorkerInit, 'ring' | 'partition'> | null = null;
  private ready = false;
  private exited = false;
  /** Requests of this event-loop turn, not yet in the ring (see the module header). */
  private batch: WorkflowRequest[] = [];
  private flushScheduled = false;

  constructor(readonly partition: number, private readonly log: Logger, private readonly onFail: (e: EngineError) => void) {}

  /** Starts the thread; resolves with its `ready` message once the partition is open (and converted). */
  start(init: Omit<WorkflowWorkerInit, 'ring' | 'partition'>): Promise<{ appliedLow: number; appliedAbove: number[] }> {
    // A .ts entry cannot be a Worker's main module: a small bootstrap registers tsx's loader (unless running
    // compiled), then imports it.
    const loader = RUNNING_COMPILED ? '' : `const { register } = await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}); register();`;
    const boot = `(async () => { ${loader}
      await import(${JSON.stringify(WORKER_FILE.href)}); })().catch((e) => { require('node:worker_threads').parentPort.postMessage(
      { type: 'fatal', error: { code: 'INTERNAL', message: String(e && e.message), details: {}, category: 'InternalError' } }); });`;
    this.init = init;
    const data: WorkflowWorkerInit = { ...init, ring: this.ring.buffer, partition: this.partition };
    this.worker = new Worker(boot, { eval: true, workerData: data, name: `workflow-p${this.partition}`, execArgv: optionsForWorkers(process.execArgv) });
    return new Promise((resolve, reject) => {
      this.worker.on('message', (m: WorkflowReply) => {
        if (m.type === 'ready') { this.ready = true; resolve(m); } else if (m.type === 'fatal') {
          const e = fromWire(m.error);
          if ((this.ready || this.restarting) && e.code === 'DISK_FULL') this.beginRestart(e); else this.fail(e);
          reject(e);
        } else this.settle(m);
      });
      this.exited = false;
      this.worker.once('exit', (code) => {
        this.exited = true;
        const e = new InternalError('WORKER_CRASHED', `workflow partition ${this.partition} exited with code ${code}`);
        if (this.restarting) this.restart();
        else if (!this.stopping) this.fail(e);
        reject(e);
      });
      this.worker.once('error', (err) => {
        const e = new InternalError('WORKER_CRASHED', `workflow partition ${this.partition} crashed: ${err.message}`);
        if (!this.restarting) this.fail(e); // else the exit that follows restarts it
        reject(e);
      });
    });
  }

  call<K extends WorkflowOpName>(op: K, args: WorkflowArgs<K>): Promise<WorkflowResult<K>> {
    if (this.dead) return Promise.reject(this.dead);
    if (this.restarting) return Promise.reject(this.restarting);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.batch.push({ id, op, args });
      if (!this.flushScheduled) { this.flushScheduled = true; setImmediate(this.flushBatch); }
    });
  }

  /** Writes this turn's requests to the ring as one message. */
  private readonly flushBatch = (): void => {
    this.flushScheduled = false;
    const reqs = this.batch;
    if (reqs.length === 0) return;
    this.batch = [];
    // In order (arrival order per contact): a message waiting for space is never overtaken. Records mode:
    // the turn's requests share a shape or two, whose keys are then written once.
    this.producer.write(packMessage(reqs)).catch((err) => {
      for (const r of reqs) {
        const p = this.pending.get(r.id);
        if (p) { this.pending.delete(r.id); p.reject(err); }
      }
    });
  };

  private settle(m: WorkflowReply): void {
    if (m.type === 'packed') { const list = unpack<WorkflowReply[]>(m.bytes); for (let i = 0; i < list.length; i++) this.settle(list[i]); return; }
    if (m.type !== 'reply') return;
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.ok) p.resolve(m.value); else p.reject(fromWire(m.error));
  }

  /**
   * A commit failed on a full disk: the thread's memory holds changes LMDB refused, so it ends (workers/
   * workflow.ts) and a new thread reopens the partition from LMDB — with a new ring, as requests left in the
   * old one were answered with the failure. Unanswered requests get `e` (DISK_FULL), as do calls until the
   * new thread is ready; while the disk stays full, a restart that fails again is retried.
   */
  private beginRestart(e: EngineError): void {
    if (this.restarting) return;
    this.restarting = e;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
    this.batch = []; // answered with the failure: not sent to the thread that replaces this one
    this.log.warn('workflow partition commit failed on a full disk; restarting it from disk', { partition: this.partition, err: e.message });
  }

  private restart(): void {
    if (this.stopping) return;
    const e = this.restarting!;
    this.ring = SpscRing.create(RING_BYTES);
    this.producer = new SpscProducer(this.ring);
    this.ready = false;
    setTimeout(() => {
      if (this.stopping) return;
      this.start(this.init!).then(() => {
        this.restarting = null;
        this.log.info('workflow partition restarted', { partition: this.partition });
      }, (err: EngineError) => {
        // Failing again on the full disk restarts again (the exit handler); anything else fails the partition.
        if (err.code !== 'DISK_FULL' && this.restarting === e) { this.restarting = null; this.fail(err); }
      });
    }, RESTART_DELAY_MS).unref();
  }

  private fail(e: EngineError): void {
    if (this.dead) return;
    this.dead = e;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
    this.log.error('workflow partition failed', { partition: this.partition, err: e.message });
    this.onFail(e);
  }

  /** Closes the ring (the thread commits what it has and exits) and waits for the thread to end. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.flushBatch();
    this.ring.close();
    // A thread that ended on a full disk and awaits its restart has nothing left to stop.
    if (this.exited) return;
    await new Promise<void>((r) => { this.worker.once('exit', () => r()); setTimeout(() => { void this.worker.terminate(); }, 5000).unref(); });
  }
}
