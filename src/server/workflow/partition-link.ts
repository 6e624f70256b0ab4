/**
 * The main thread's end of one workflow engine thread (one partition): the producer end of its request
 * ring, the worker, and the correlation of postMessage replies with callers. Requests to one partition are
 * written to its ring in call order and processed in that order (per-contact order).
 */
import { Worker } from 'node:worker_threads';
import { fromWire, InternalError, type EngineError } from '../../engine/errors.ts';
import { pack } from '../../engine/codec/msgpack.ts';
import { SpscProducer, SpscRing } from '../../engine/queue/spsc-ring.ts';
import type { WorkflowReply, WorkflowWorkerInit } from '../../workers/workflow-protocol.ts';
import type { WorkflowArgs, WorkflowOpName, WorkflowResult } from '../../workers/protocol.ts';
import type { Logger } from '../context.ts';
import { RUNNING_COMPILED } from '../../runtime/running-compiled.ts';

const WORKER_FILE = new URL('../../workers/workflow.ts', import.meta.url);
/** Per partition; a request is a few hundred bytes (a 1,000-event batch about 100 KB), and every touched page stays resident. */
const RING_BYTES = 2 * 1024 * 1024;

interface Pending { resolve(v: unknown): void; reject(e: EngineError): void }

export class PartitionLink {
  private readonly ring = SpscRing.create(RING_BYTES);
  private readonly producer = new SpscProducer(this.ring);
  private readonly pending = new Map<number, Pending>();
  private worker!: Worker;
  private nextId = 1;
  private dead: EngineError | null = null;
  private stopping = false;

  constructor(readonly partition: number, private readonly log: Logger, private readonly onFail: (e: EngineError) => void) {}

  /** Starts the thread; resolves with its `ready` message once the partition is open (and converted). */
  start(init: Omit<WorkflowWorkerInit, 'ring' | 'partition'>): Promise<{ appliedLow: number; appliedAbove: number[] }> {
    // A .ts entry cannot be a Worker's main module: a small bootstrap registers tsx's loader (unless running
    // compiled), then imports it.
    const loader = RUNNING_COMPILED ? '' : `const { register } = await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}); register();`;
    const boot = `(async () => { ${loader}
      await import(${JSON.stringify(WORKER_FILE.href)}); })().catch((e) => { require('node:worker_threads').parentPort.postMessage(
      { type: 'fatal', error: { code: 'INTERNAL', message: String(e && e.message), details: {}, category: 'InternalError' } }); });`;
    const data: WorkflowWorkerInit = { ...init, ring: this.ring.buffer, partition: this.partition };
    this.worker = new Worker(boot, { eval: true, workerData: data, name: `workflow-p${this.partition}` });
    return new Promise((resolve, reject) => {
      this.worker.on('message', (m: WorkflowReply) => {
        if (m.type === 'ready') resolve(m);
        else if (m.type === 'fatal') { const e = fromWire(m.error); this.fail(e); reject(e); } else this.settle(m);
      });
      this.worker.once('exit', (code) => {
        const e = new InternalError('WORKER_CRASHED', `workflow partition ${this.partition} exited with code ${code}`);
        if (!this.stopping) this.fail(e);
        reject(e);
      });
      this.worker.once('error', (err) => { const e = new InternalError('WORKER_CRASHED', `workflow partition ${this.partition} crashed: ${err.message}`); this.fail(e); reject(e); });
    });
  }

  call<K extends WorkflowOpName>(op: K, args: WorkflowArgs<K>): Promise<WorkflowResult<K>> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      // In order (arrival order per contact): a message waiting for space is never overtaken.
      this.producer.write(pack({ id, op, args })).catch((err) => { this.pending.delete(id); reject(err); });
    });
  }

  private settle(m: WorkflowReply): void {
    if (m.type === 'replies') { for (const r of m.replies) this.settle(r); return; }
    if (m.type !== 'reply') return;
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.ok) p.resolve(m.value); else p.reject(fromWire(m.error));
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
    this.ring.close();
    await new Promise<void>((r) => { this.worker.once('exit', () => r()); setTimeout(() => { void this.worker.terminate(); }, 5000).unref(); });
  }
}
