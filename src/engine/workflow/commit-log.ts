/**
 * A partition's commit log (docs/format.md "Workflow state", commit log; layout 5): one WAL record per commit,
 * holding the commit's number and its writes. A commit is durable once its record is fsynced — one sequential
 * append and one fsync, where an LMDB commit writes some thirty pages scattered over its file and flushes the
 * device twice (the data, then the meta page), which on this project's disks took 2.5–3 ms against 0.2–0.5 ms.
 * LMDB is written behind the log (`lmdb-kv.ts`); the segments whose commits LMDB has flushed are deleted, and
 * at open the records LMDB lacks (a crash between the log's fsync and LMDB's) are applied to it again.
 */
import { join } from 'node:path';
import { WORKFLOW_COMMIT_LOG_DIR, WORKFLOW_COMMIT_LOG_RECORD } from '../codec/format-ids.ts';
import { asciiInto } from '../codec/byte-buf.ts';
import { CorruptionError } from '../errors.ts';
import { Wal, type WalPosition } from '../wal/index.ts';
import type { KvWrite } from './kv.ts';

/** Segment size: small enough that the flushed part of the log is deleted every few seconds under load. */
const SEGMENT_BYTES = 16 * 1024 * 1024;
/** Zeros written ahead of the records (`WalOptions.preallocateBytes`): the fsyncs of a commit then grow no file. */
const PREALLOCATE_BYTES = 1024 * 1024;

export interface LoggedCommit { no: number; writes: KvWrite[] }

/**
 * A commit record's payload: f64 LE commit number, u32 LE write count, then per write: u8 length and the space
 * name (ASCII), u32 LE length and the key (UTF-8), i32 LE length and the value (-1: a delete, no bytes).
 */
export function encodeCommit(no: number, writes: readonly KvWrite[]): Buffer {
  let bound = 12;
  for (let i = 0; i < writes.length; i++) {
    const w = writes[i];
    bound += 9 + w.space.length + w.key.length * 3 + (w.value === null ? 0 : w.value.length);
  }
  const buf = Buffer.allocUnsafe(bound);
  buf.writeDoubleLE(no, 0);
  buf.writeUInt32LE(writes.length, 8);
  let off = 12;
  for (let i = 0; i < writes.length; i++) {
    const w = writes[i];
    // Space names and most keys are short ASCII, copied by hand: a native `Buffer.write` per string was most
    // of this loop (0.5 µs of a write's 0.8, 4 µs per event).
    let sl = asciiInto(buf, off + 1, w.space);
    if (sl < 0) sl = buf.write(w.space, off + 1, 'latin1');
    buf[off] = sl;
    off += 1 + sl;
    let kl = asciiInto(buf, off + 4, w.key);
    if (kl < 0) kl = buf.write(w.key, off + 4, 'utf8');
    buf.writeUInt32LE(kl, off);
    off += 4 + kl;
    if (w.value === null) { buf.writeInt32LE(-1, off); off += 4; continue; }
    buf.writeInt32LE(w.value.length, off);
    buf.set(w.value, off + 4);
    off += 4 + w.value.length;
  }
  return buf.subarray(0, off);
}

/** The commit of a record payload (its values alias `payload`); CorruptionError when it does not parse. */
export function decodeCommit(payload: Uint8Array, where: string): LoggedCommit {
  const buf = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const bad = (at: number): never => { throw new CorruptionError(where, at, 'commit record does not parse'); };
  if (buf.length < 12) bad(0);
  const no = buf.readDoubleLE(0);
  const n = buf.readUInt32LE(8);
  if (!Number.isSafeInteger(no) || no < 1) bad(0);
  const writes: KvWrite[] = new Array(n);
  let off = 12;
  for (let i = 0; i < n; i++) {
    if (off + 1 > buf.length) bad(off);
    const sl = buf[off];
    if (off + 1 + sl + 4 > buf.length) bad(off);
    const space = buf.toString('latin1', off + 1, off + 1 + sl);
    off += 1 + sl;
    const kl = buf.readUInt32LE(off);
    if (off + 4 + kl + 4 > buf.length) bad(off);
    const key = buf.toString('utf8', off + 4, off + 4 + kl);
    off += 4 + kl;
    const vl = buf.readInt32LE(off);
    off += 4;
    if (vl < -1 || off + Math.max(vl, 0) > buf.length) bad(off);
    writes[i] = { space, key, value: vl === -1 ? null : buf.subarray(off, off + vl) };
    off += Math.max(vl, 0);
  }
  if (off !== buf.length) bad(off);
  return { no, writes };
}

export class CommitLog {
  /** Where each segment written by this process starts: its number and the first commit in it, ascending. */
  private readonly starts: { segment: number; first: number }[] = [];
  /** Segment deletions run one at a time, in order. */
  private releasing: Promise<void> = Promise.resolve();

  private constructor(private readonly wal: Wal) {}

  static dir(envDir: string): string { return join(envDir, WORKFLOW_COMMIT_LOG_DIR); }

  /**
   * Opens the log of the environment in `envDir` and calls `onCommit` for every commit in it, in order (a
   * torn tail — a record whose fsync never completed, so never acknowledged — is dropped by the WAL).
   */
  static async open(envDir: string, onCommit: (c: LoggedCommit) => void): Promise<CommitLog> {
    const dir = CommitLog.dir(envDir);
    const wal = await Wal.open({ dir, segmentSizeBytes: SEGMENT_BYTES, preallocateBytes: PREALLOCATE_BYTES });
    const log = new CommitLog(wal);
    try {
      await wal.replay(null, (type, payload, pos) => {
        const where = `${dir} segment ${pos.segment}`;
        if (type !== WORKFLOW_COMMIT_LOG_RECORD) throw new CorruptionError(where, pos.offset, `record type ${type}, want ${WORKFLOW_COMMIT_LOG_RECORD}`);
        const c = decodeCommit(payload, where);
        log.started(pos.segment, c.no);
        onCommit(c);
      });
    } catch (err) {
      await wal.close().catch(() => undefined);
      throw err;
    }
    return log;
  }

  /** Notes that commit `no` is in `segment` (the first such commit starts it). */
  private started(segment: number, no: number): void {
    const last = this.starts[this.starts.length - 1];
    if (last === undefined || last.segment !== segment) this.starts.push({ segment, first: no });
  }

  /** Appends commit `no`; resolves once its record is fsynced (appends queued meanwhile share the fsync). */
  append(no: number, writes: readonly KvWrite[]): Promise<void> {
    return this.wal.append(WORKFLOW_COMMIT_LOG_RECORD, encodeCommit(no, writes)).then((pos: WalPosition) => this.started(pos.segment, no));
  }

  /** Every commit up to `no` is flushed in LMDB: deletes the segments holding only such commits. */
  release(no: number): Promise<void> {
    // Segments before start k hold commits below its first one: all flushed when that is at most no + 1.
    let k = 0;
    while (k + 1 < this.starts.length && this.starts[k + 1].first <= no + 1) k++;
    if (k === 0) return this.releasing;
    const cut = this.starts[k].segment;
    this.starts.splice(0, k);
    this.releasing = this.releasing.then(() => this.wal.truncateBefore({ segment: cut, offset: 0 }));
    return this.releasing;
  }

  /** Everything in the log is flushed in LMDB (after a replay, or at close): deletes every segment. */
  releaseAll(): Promise<void> {
    this.releasing = this.releasing.then(async () => {
      const pos = await this.wal.cut();
      this.starts.length = 0;
      await this.wal.truncateBefore(pos);
    });
    return this.releasing;
  }

  /** Fsyncs of the log since it was opened (`/health` commit accounting). */
  syncs(): number { return this.wal.stats().fsyncs; }

  async close(): Promise<void> {
    await this.releasing.catch(() => undefined);
    await this.wal.close();
  }
}
