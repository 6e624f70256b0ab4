/**
 * Upgrade path for inbound events acknowledged by a build that logged them in the workflow WAL
 * (`workflow-wal`, layouts 1 and the first layout-2 build): every record not yet applied in its
 * partition is processed once more, as of its receive time, then the WAL directory is deleted. Events are
 * durable by the partitions' LMDB commits from then on. Applied marks are per partition (a viewlog record
 * set may be split over several), and each replayed item carries its WAL sequence number, so an import
 * interrupted by a crash resumes without applying anything twice.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { unpack } from '../../engine/codec/msgpack.ts';
import { WORKFLOW_WAL_DIR, WORKFLOW_WAL_RECORD_INGEST } from '../../engine/codec/format-ids.ts';
import { Wal } from '../../engine/wal/index.ts';
import type { Logger } from '../context.ts';

/** `{seq, op, body, at?}`: see docs/format.md "Workflow state", WAL. */
export interface IngestRecord { seq: number; op: 'event' | 'events' | 'viewlog'; body: unknown; at?: number }

export interface AppliedMarks { appliedLow: number; appliedAbove: number[] }

/** Replays one record (routing it like a live request, with `seq` and `at`), honouring `applied(partition, seq)`. */
export type Replay = (rec: IngestRecord, applied: (partition: number, seq: number) => boolean) => Promise<unknown>;

export async function importWal(dataDir: string, marks: AppliedMarks[], replay: Replay, log: Logger, repair: boolean): Promise<number> {
  const dir = join(dataDir, WORKFLOW_WAL_DIR);
  if (!existsSync(dir)) return 0;
  const sets = marks.map((m) => ({ low: m.appliedLow, above: new Set(m.appliedAbove) }));
  const applied = (p: number, seq: number) => seq <= sets[p].low || sets[p].above.has(seq);
  const wal = await Wal.open({ dir, compress: false, repair, onWarning: (msg) => log.warn(msg) });
  const records: IngestRecord[] = [];
  try {
    await wal.replay(null, (type, payload) => { if (type === WORKFLOW_WAL_RECORD_INGEST) records.push(unpack<IngestRecord>(payload)); });
  } finally {
    await wal.close();
  }
  // Sent in log order (each partition's ring keeps it: per-contact order is acknowledgement order), then awaited.
  await Promise.all(records.map((rec) => replay(rec, applied).catch(() => undefined)));
  rmSync(dir, { recursive: true, force: true });
  if (records.length) log.info('workflow: imported the inbound-event WAL', { records: records.length });
  return records.length;
}
