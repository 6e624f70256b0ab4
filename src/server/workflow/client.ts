/**
 * Main-thread side of the workflow service: owns the WAL of inbound events and the producer end of the
 * request ring, and correlates the worker's postMessage replies with callers.
 *
 * Durability: an inbound event is appended to the WAL (fsynced, group commit) with a sequence number
 * before it is pushed on the ring; the worker commits its effects together with "seq applied" in one LMDB
 * transaction. On start-up every WAL record the worker has not applied is pushed again, so each
 * acknowledged event takes effect exactly once. Whole WAL segments are deleted once every event in them
 * has been answered (i.e. applied and committed).
 */
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { fromWire, InternalError, type EngineError } from '../../engine/errors.ts';
import { pack, unpack } from '../../engine/codec/msgpack.ts';
import { SpscProducer, SpscRing } from '../../engine/queue/spsc-ring.ts';
import { WORKFLOW_WAL_DIR, WORKFLOW_WAL_RECORD_INGEST } from '../../engine/codec/format-ids.ts';
import { Wal, type WalPosition } from '../../engine/wal/index.ts';
import { type WorkflowReply, type WorkflowWorkerInit } from '../../workers/workflow-protocol.ts';
import type { Logger } from '../context.ts';

const WORKER_FILE = new URL('../../workers/workflow.ts', import.meta.url);
const RING_BYTES = 8 * 1024 * 1024;
const CUT_EVERY_BYTES = 64 * 1024 * 1024;

interface Pending { resolve(v: unknown): void; reject(e: EngineError): void; seq: number }
/** `at`: receive time (real-clock mode only), the time the event is processed as, also on replay. */
interface IngestRecord { seq: number; op: string; body: unknown; at?: number }

export interface WorkflowClientOptions {
  dataDir: string;
  testClock: boolean;
  walCompression: boolean;
  walSegmentSizeBytes: number;
  walRepair: boolean;
  cacheEntries: number;
  retentionMs: number;
  log: Logger;
}

export class WorkflowClient {
  private readonly ring = SpscRing.create(RING_BYTES);
  private readonly producer = new SpscProducer(this.ring);
  private readonly pending = new Map<number, Pending>();
  private worker!: Worker;
  private wal!: Wal;
  private nextId = 1;
  private nextSeq = 1;
  private bytesSinceCut = 0;
  private cutAt: { pos: WalPosition; lastSeq: number } | null = null;
  private readonly inFlightSeqs = new Set<number>();
  private truncating = false;
  private readonly cutEvery: number;
  private dead: EngineError | null = null;
  /** Requests that arrive while start-up (WAL replay) runs wait for it: sequence numbers come after the log's. */
  private started = false;
  private markStarted!: () => void;
  private readonly startedP = new Promise<void>((r) => { this.markStarted = r; });
  private stopping = false;

  constructor(private readonly opts: WorkflowClientOptions) {
    this.cutEvery = Math.max(4096, Math.min(CUT_EVERY_BYTES, Math.floor(opts.walSegmentSizeBytes / 2)));
  }

  async start(): Promise<void> {
    const o = this.opts;
    this.wal = await Wal.open({
      dir: join(o.dataDir, WORKFLOW_WAL_DIR), compress: o.walCompression, segmentSizeBytes: o.walSegmentSizeBytes,
      repair: o.walRepair, onWarning: (msg) => o.log.warn(msg),
    });
    const init: WorkflowWorkerInit = {
      ring: this.ring.buffer, dataDir: o.dataDir, partition: 0, partitions: 1, testClock: o.testClock,
      cacheEntries: o.cacheEntries, retentionMs: o.retentionMs,
    };
    // A .ts entry cannot be a Worker's main module: a small bootstrap registers tsx's loader, then imports it.
    const boot = `(async () => { const { register } = await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}); register();
      await import(${JSON.stringify(WORKER_FILE.href)}); })().catch((e) => { require('node:worker_threads').parentPort.postMessage(
      { type: 'fatal', error: { code: 'INTERNAL', message: String(e && e.message), details: {}, category: 'InternalError' } }); });`;
    this.worker = new Worker(boot, { eval: true, workerData: init });
    const ready = new Promise<{ appliedLow: number; appliedAbove: number[] }>((resolve, reject) => {
      this.worker.on('message', (m: WorkflowReply) => {
        if (m.type === 'ready') resolve(m);
        else if (m.type === 'fatal') { const e = fromWire(m.error); this.fail(e); reject(e); } else this.settle(m);
      });
      this.worker.once('exit', (code) => { if (!this.stopping) this.fail(new InternalError('WORKER_CRASHED', `workflow worker exited with code ${code}`)); });
      this.worker.once('error', (err) => { const e = new InternalError('WORKER_CRASHED', `workflow worker crashed: ${err.message}`); this.fail(e); reject(e); });
    });
    const applied = await ready;
    await this.replay(applied);
    this.started = true;
    this.markStarted();
  }

  /** Re-sends every WAL record the worker has not applied, in log order, then starts a fresh segment. */
  private async replay(applied: { appliedLow: number; appliedAbove: number[] }): Promise<void> {
    const above = new Set(applied.appliedAbove);
    let maxSeq = applied.appliedLow;
    for (const s of applied.appliedAbove) if (s > maxSeq) maxSeq = s;
    const again: Promise<unknown>[] = [];
    await this.wal.replay(null, (type, payload) => {
      if (type !== WORKFLOW_WAL_RECORD_INGEST) return;
      const rec = unpack<IngestRecord>(payload);
      const count = batchSize(rec.op, rec.body);
      maxSeq = Math.max(maxSeq, rec.seq + count - 1);
      if (rec.seq + count - 1 <= applied.appliedLow || (count === 1 && above.has(rec.seq))) return;
      again.push(this.send(rec.op, { seq: rec.seq, body: rec.body, at: rec.at }, rec.seq).catch(() => undefined));
    });
    this.nextSeq = maxSeq + 1;
    await Promise.all(again);
    if (again.length) this.opts.log.info('workflow: replayed unapplied events from the WAL', { events: again.length });
    await this.send('sync', {}, 0); // the replayed events are committed to LMDB before their records go
    const pos = await this.wal.cut();
    await this.wal.truncateBefore(pos);
  }

  /** A request with no durability step (management, queries, the test clock). */
  async call(op: string, args: unknown): Promise<unknown> {
    if (!this.started) await this.startedP;
    return this.send(op, args, 0);
  }

  /** An inbound event: WAL first (durable), then the worker. `count` sequence numbers are reserved. */
  async ingest(op: 'event' | 'events' | 'viewlog', body: unknown): Promise<unknown> {
    if (!this.started) await this.startedP;
    if (this.dead) throw this.dead;
    const seq = this.nextSeq;
    this.nextSeq += batchSize(op, body);
    const rec: IngestRecord = this.opts.testClock ? { seq, op, body } : { seq, op, body, at: Date.now() };
    const payload = pack(rec);
    this.inFlightSeqs.add(seq);
    try {
      await this.wal.append(WORKFLOW_WAL_RECORD_INGEST, payload);
      this.bytesSinceCut += payload.byteLength;
      // The worker gets the WAL payload itself ({seq, op, body, at}): the body is encoded once.
      return await this.send(op, { walRecord: payload }, seq);
    } finally {
      this.inFlightSeqs.delete(seq);
      void this.maybeTruncate();
    }
  }

  /**
   * Every CUT_EVERY bytes the WAL is cut; once every event up to the cut has been answered, a `sync` request
   * waits for the LMDB commit that covers them (event replies do not wait for it), and then the segments
   * before the cut are deleted. `lastSeq` is read in the same tick as `cut()` is queued, so every event at
   * or below it was queued before the cut and every later one after it.
   */
  private async maybeTruncate(): Promise<void> {
    if (this.cutAt === null && !this.truncating && this.bytesSinceCut >= this.cutEvery) {
      this.bytesSinceCut = 0;
      this.truncating = true;
      const lastSeq = this.nextSeq - 1;
      try { this.cutAt = { pos: await this.wal.cut(), lastSeq }; } finally { this.truncating = false; }
    }
    const c = this.cutAt;
    if (!c || this.truncating) return;
    for (const s of this.inFlightSeqs) if (s <= c.lastSeq) return;
    this.truncating = true;
    try {
      await this.call('sync', {});
      this.cutAt = null;
      await this.wal.truncateBefore(c.pos);
    } catch (err) {
      this.opts.log.warn('workflow: WAL truncation postponed', { err: (err as Error).message });
    } finally {
      this.truncating = false;
    }
  }

  private send(op: string, args: unknown, seq: number): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, seq });
      const bytes = pack({ id, op, args });
      // In order (arrival order per contact): a message waiting for space is never overtaken.
      this.producer.write(bytes).catch((err) => { this.pending.delete(id); reject(err); });
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
    this.dead = e;
    this.markStarted(); // waiting requests go on and are refused with the error
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
    this.opts.log.error('workflow worker failed', { err: e.message });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.ring.close();
    await new Promise<void>((r) => { this.worker.once('exit', () => r()); setTimeout(() => { void this.worker.terminate(); }, 5000).unref(); });
    await this.wal.close();
  }
}

/** Sequence numbers an ingest record takes: one per item of a batch, so each item is applied once. */
function batchSize(op: string, body: unknown): number {
  if (op !== 'events') return 1;
  const events = (body as { events?: unknown } | null)?.events;
  return Array.isArray(events) && events.length > 0 ? events.length : 1;
}
