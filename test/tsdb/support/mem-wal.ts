/** An in-memory stand-in for the TSDB WAL (wal-port.ts) with the same contract, for engine tests that need no disk log. */
import { noWalCounts, type TsdbWal, type WalReplayResult, type WalStats } from '../../../src/engine/tsdb/wal-port.ts';
import { RecentObservations } from '../../../src/engine/model/recent-observations.ts';

export class MemWalStore {
  /** Records of the newest checkpoint (null: none), and the segments after it. */
  checkpoint: Uint8Array[] | null = null;
  segments: Uint8Array[][] = [[]];
  open = async (_dir: string): Promise<TsdbWal> => new MemWal(this);
}

class MemWal implements TsdbWal {
  constructor(private readonly st: MemWalStore) {}
  async log(records: readonly Uint8Array[]): Promise<void> {
    const seg = this.st.segments[this.st.segments.length - 1];
    for (const r of records) seg.push(r.slice());
  }
  async replay(onRecord: (rec: Uint8Array, file: string) => void): Promise<WalReplayResult> {
    let records = 0, bytes = 0;
    for (const r of this.st.checkpoint ?? []) { records++; bytes += r.length; onRecord(r, 'checkpoint'); }
    for (let s = 0; s < this.st.segments.length; s++) {
      for (const r of this.st.segments[s]) { records++; bytes += r.length; onRecord(r, `segment ${s}`); }
    }
    return { records, bytes, firstSegment: this.st.segments.length ? 0 : -1, lastSegment: this.st.segments.length - 1 };
  }
  async checkpoint(records: Iterable<Uint8Array>): Promise<void> {
    this.st.segments.push([]);
    const cp: Uint8Array[] = [];
    for (const r of records) cp.push(r.slice());
    this.st.checkpoint = cp;
    this.st.segments = this.st.segments.slice(-1);
    this.counts.checkpointsCreated++; this.counts.truncations++; this.counts.checkpointDeletions++;
  }
  private readonly counts = noWalCounts();
  stats(): WalStats { return { bytesWritten: 0, fsyncs: 0, records: 0, segments: this.st.segments.length, counts: { ...this.counts }, segmentCurrent: this.st.segments.length - 1, fsyncSeconds: new RecentObservations() }; }
  async close(): Promise<void> {}
}
