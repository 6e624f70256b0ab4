/**
 * Main-thread side of the workflow service: N engine threads (partitions, `partition-link.ts`), each
 * owning the contacts `partitionOf(businessId, contactId)` assigns to it, and the routing of every
 * operation to them.
 *
 * - Inbound events go to their contact's partition (a batch or viewlog is split by contact, results put
 *   back in request order). An event is acknowledged after the LMDB commit of its effects in that partition.
 * - Management calls (workflows, channels, the test clock) are replicated: sent to every partition in the
 *   same order with the same inputs — including whether the workflow has runs anywhere (asked first) and,
 *   with the real clock, the receive time — so every partition's catalog stays identical. Partition 0's
 *   answer is returned, with counters summed over partitions.
 * - Reads about one contact go to its partition; workflow statistics and listings are merged.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, type EngineError } from '../../engine/errors.ts';
import { WORKFLOW_DIR, WORKFLOW_PARTITIONS_FILE } from '../../engine/codec/format-ids.ts';
import { partitionOf } from '../../workers/workflow-protocol.ts';
import type { WorkflowArgs, WorkflowOpName, WorkflowResult } from '../../workers/protocol.ts';
import type { Logger } from '../context.ts';
import { PartitionLink } from './partition-link.ts';
import { mergeHealth, mergeJourneys, mergePages, mergeWorkflowLists, sumStats, withSummedStats } from './merge.ts';
import { importWal, type IngestRecord } from './wal-import.ts';

export interface WorkflowClientOptions {
  dataDir: string;
  testClock: boolean;
  walRepair: boolean;
  cacheEntries: number;
  retentionMs: number;
  allowPrivateWebhookTargets: boolean;
  /** Partitions of a NEW data directory (an existing one keeps its count). */
  partitions: number;
  log: Logger;
}

/** Largest `page × size` a paged listing may ask for (deeper pages: use the `after` cursor). */
const MAX_PAGE_DEPTH = 100_000;

type Body = Record<string, unknown>;
const isObj = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Routing key of an event or viewlog record, as the engine reads it (numbers are ids too). */
const idOf = (v: unknown): string | null => (typeof v === 'number' ? String(v) : typeof v === 'string' ? v : null);

export class WorkflowClient {
  private links: PartitionLink[] = [];
  private dead: EngineError | null = null;
  private started = false;
  private markStarted!: () => void;
  private readonly startedP = new Promise<void>((r) => { this.markStarted = r; });

  constructor(private readonly opts: WorkflowClientOptions) {}

  get partitions(): number { return this.links.length; }

  async start(): Promise<void> {
    const o = this.opts;
    const n = partitionCount(o.dataDir, o.partitions);
    this.links = Array.from({ length: n }, (_, p) => new PartitionLink(p, o.log, (e) => { this.dead ??= e; this.markStarted(); }));
    const init = { dataDir: o.dataDir, partitions: n, testClock: o.testClock, cacheEntries: o.cacheEntries, retentionMs: o.retentionMs,
      allowPrivateWebhookTargets: o.allowPrivateWebhookTargets };
    const marks = await Promise.all(this.links.map((l) => l.start(init)));
    await importWal(o.dataDir, marks, (rec, applied) => this.replayRecord(rec, applied), o.log, o.walRepair);
    this.started = true;
    this.markStarted();
  }

  async stop(): Promise<void> { await Promise.all(this.links.map((l) => l.stop())); }

  private async ready(): Promise<void> {
    if (!this.started) await this.startedP;
    if (this.dead) throw this.dead;
  }

  private partitionOf(businessId: unknown, contactId: unknown): number {
    const c = idOf(contactId);
    // Unroutable (invalid) input goes to partition 0, which rejects it with the engine's message.
    if (typeof businessId !== 'number' || c === null) return 0;
    return partitionOf(businessId, c, this.links.length);
  }

  private all<K extends WorkflowOpName>(op: K, args: WorkflowArgs<K>): Promise<WorkflowResult<K>[]> {
    return Promise.all(this.links.map((l) => l.call(op, args)));
  }

  /** A replicated management call: every partition, same order, same inputs; partition 0 answers. */
  private async replicate<K extends WorkflowOpName>(op: K, args: WorkflowArgs<K>): Promise<WorkflowResult<K>[]> {
    const at = this.opts.testClock ? undefined : Date.now();
    return this.all(op, { ...(args as object), at } as WorkflowArgs<K>);
  }

  /** Any operation, routed as the module header describes. */
  async call<K extends WorkflowOpName>(op: K, args: WorkflowArgs<K>): Promise<WorkflowResult<K>> {
    await this.ready();
    return this.route(op, args) as Promise<WorkflowResult<K>>;
  }

  private async route(op: WorkflowOpName, a: any): Promise<unknown> {
    const L = this.links;
    switch (op) {
      case 'workflow.save': {
        const id = isObj(a.body) && typeof a.body.id === 'number' ? a.body.id : null;
        const anyRuns = id === null ? false : (await this.all('workflow.hasRuns', { id })).some(Boolean);
        const parts = await this.replicate('workflow.save', { ...a, anyRuns });
        return { ...parts[0], workflow: withSummedStats(parts.map((p) => p.workflow)) };
      }
      case 'workflow.enable': return withSummedStats(await this.replicate(op, a));
      case 'workflow.delete': {
        const parts = await this.replicate(op, a);
        return { ...parts[0], cancelledRuns: sum(parts, 'cancelledRuns'), cancelledTimers: sum(parts, 'cancelledTimers') };
      }
      case 'channels.delete': {
        const parts = await this.replicate(op, a);
        return { ...parts[0], cancelledTimers: sum(parts, 'cancelledTimers') };
      }
      case 'channels.upsert': case 'channels.update': case 'channels.status': case 'clock': case 'sync':
        return (await this.replicate(op, a))[0];
      case 'workflow.get': return withSummedStats(await this.all(op, a));
      case 'workflow.list': return mergeWorkflowLists(await this.all(op, a));
      case 'workflow.statistics': return sumStats(await this.all(op, a));
      case 'workflow.journey': return mergeJourneys(await this.all(op, a));
      case 'workflow.runs': case 'workflow.actions': case 'workflow.outbox': return this.listing(op, a);
      case 'health': return mergeHealth(await this.all(op, a));
      case 'state': case 'contacts.tags': case 'contacts.get': return L[this.partitionOf(a.businessId, a.contactId)].call(op, a);
      case 'workflow.hasRuns': return (await this.all(op, a)).some(Boolean);
      default: return L[0].call(op, a); // catalog reads and checks: every partition has the same answer
    }
  }

  /** A paged listing over all partitions: each returns its first `skip + size` matches (or `size` after the cursor). */
  private async listing(op: 'workflow.runs' | 'workflow.actions' | 'workflow.outbox', a: { page?: number; size?: number; after?: string }): Promise<unknown> {
    if (this.links.length === 1) return this.links[0].call(op, a as never);
    const size = a.size ?? 1000;
    const skip = a.after === undefined ? ((a.page ?? 1) - 1) * size : 0;
    if (skip + size > MAX_PAGE_DEPTH) throw new InvalidArgumentError('WF_VALIDATION', `page × size must be <= ${MAX_PAGE_DEPTH}; use the after cursor`, { path: 'page' });
    const parts = await this.all(op, { ...a, page: 1, size: skip + size } as never) as { id: string; workflowId?: number; businessId?: number | null }[][];
    // The order of the index each partition walked: grouped by workflow/business when unfiltered, then by id.
    const key = (v: { id: string; workflowId?: number; businessId?: number | null }) => {
      const unfiltered = op === 'workflow.actions' ? (a as Body).workflowId === undefined && (a as Body).contactId === undefined
        : op === 'workflow.outbox' ? (a as Body).businessId === undefined && (a as Body).contactId === undefined : false;
      if (!unfiltered) return v.id;
      const group = op === 'workflow.actions' ? v.workflowId : v.businessId;
      return String(group ?? 0).padStart(16, '0') + '\u001f' + v.id;
    };
    return mergePages(parts, key, skip, size);
  }

  /**
   * An inbound event, batch or viewlog: to the contacts' partitions; answered once committed there. Once
   * started, a single event goes straight to its partition's call (no promise of its own: one per event
   * fewer on the HTTP thread).
   */
  ingest(op: 'event' | 'events' | 'viewlog', body: unknown): Promise<unknown> {
    if (!this.started || this.dead) return this.ready().then(() => this.ingest(op, body));
    if (op === 'event') {
      const b = isObj(body) ? body : {};
      return this.links[this.partitionOf(b.business_id, b.contact_id)].call('event', { body });
    }
    if (op === 'events') return this.ingestBatch(body, undefined, undefined);
    return this.ingestViewlog(body, undefined, undefined);
  }

  private async ingestBatch(body: unknown, seq: number | undefined, at: number | undefined): Promise<unknown> {
    const events = isObj(body) ? body.events : undefined;
    if (!Array.isArray(events) || this.links.length === 1) return this.links[0].call('events', { body, seq, at });
    const groups = this.links.map(() => ({ items: [] as unknown[], at: [] as number[] }));
    events.forEach((ev, i) => {
      const g = groups[isObj(ev) ? this.partitionOf(ev.business_id, ev.contact_id) : 0];
      g.items.push(ev);
      g.at.push(i);
    });
    const results = new Array(events.length);
    await Promise.all(groups.map(async (g, p) => {
      if (!g.items.length) return;
      const r = await this.links[p].call('events', { body: { events: g.items }, at });
      r.results.forEach((x, j) => { results[g.at[j]] = x; });
    }));
    return { results };
  }

  private async ingestViewlog(body: unknown, seq: number | undefined, at: number | undefined, applied?: (p: number) => boolean): Promise<unknown> {
    if (this.links.length === 1) return this.links[0].call('viewlog', { body, seq, at });
    // Whole-request validation first (a bad record rejects the request before any partition applies a part).
    await this.links[0].call('viewlog.check', { body });
    const b = body as Body & { records: unknown[] };
    const groups = this.links.map(() => ({ records: [] as unknown[], at: [] as number[] }));
    b.records.forEach((rec, i) => {
      const g = groups[this.partitionOf(b.business_id, (rec as Body).contact_id)];
      g.records.push(rec);
      g.at.push(i);
    });
    const results = new Array(b.records.length);
    await Promise.all(groups.map(async (g, p) => {
      if (!g.records.length || applied?.(p)) return;
      const r = await this.links[p].call('viewlog', { body: { ...b, records: g.records }, seq, at });
      if ('results' in r) r.results.forEach((x, j) => { results[g.at[j]] = x; });
    }));
    return { results };
  }

  /** One record of an old inbound-event WAL (see `wal-import.ts`); items are skipped where already applied. */
  private replayRecord(rec: IngestRecord, applied: (p: number, seq: number) => boolean): Promise<unknown> {
    if (rec.op === 'viewlog') return this.ingestViewlog(rec.body, rec.seq, rec.at, (p) => applied(p, rec.seq));
    const events = rec.op === 'event' ? [rec.body] : isObj(rec.body) && Array.isArray(rec.body.events) ? rec.body.events : [];
    return Promise.all(events.map((ev, i) => {
      const p = isObj(ev) ? this.partitionOf(ev.business_id, ev.contact_id) : 0;
      return applied(p, rec.seq + i) ? null : this.links[p].call('event', { seq: rec.seq + i, body: ev, at: rec.at });
    }));
  }
}

function sum<T>(parts: T[], k: keyof T): number {
  let n = 0;
  for (const p of parts) n += p[k] as number;
  return n;
}

/**
 * The partition count of a data directory, fixed at creation: `workflow/partitions` if present; a
 * directory with `workflow/p0` but no count file was made by the single-partition build (1); otherwise
 * the configured count, recorded now.
 */
function partitionCount(dataDir: string, configured: number): number {
  const dir = join(dataDir, WORKFLOW_DIR);
  const file = join(dir, WORKFLOW_PARTITIONS_FILE);
  if (existsSync(file)) {
    const n = Number(readFileSync(file, 'utf8').trim());
    if (Number.isSafeInteger(n) && n >= 1) return n;
  }
  const n = existsSync(join(dir, 'p0')) ? 1 : Math.max(1, configured);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${n}\n`);
  return n;
}
