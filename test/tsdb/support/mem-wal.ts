/** An in-memory stand-in for `src/engine/wal` with the same contract, for engine tests that need no disk log. */
import type { TsdbWal, WalPos } from '../../../src/engine/tsdb/wal-port.ts';

export class MemWalStore {
  segments: { type: number; payload: Uint8Array }[][] = [[]];
  open = async (_dir: string): Promise<TsdbWal> => new MemWal(this);
}

class MemWal implements TsdbWal {
  constructor(private readonly st: MemWalStore) {}
  private get last(): number { return this.st.segments.length - 1; }
  async appendBatch(records: { type: number; payload: Uint8Array }[]): Promise<WalPos> {
    for (const r of records) this.st.segments[this.last].push({ type: r.type, payload: r.payload.slice() });
    return this.position();
  }
  async replay(from: WalPos | null, onRecord: (type: number, payload: Uint8Array, pos: WalPos) => void): Promise<{ records: number; bytes: number }> {
    let records = 0, bytes = 0;
    for (let s = from?.segment ?? 0; s < this.st.segments.length; s++) {
      const seg = this.st.segments[s];
      if (!seg) continue;
      seg.forEach((r, i) => { records++; bytes += r.payload.length; onRecord(r.type, r.payload, { segment: s, offset: i }); });
    }
    return { records, bytes };
  }
  position(): WalPos { return { segment: this.last, offset: this.st.segments[this.last].length }; }
  async cut(): Promise<WalPos> { this.st.segments.push([]); return this.position(); }
  async truncateBefore(pos: WalPos): Promise<void> {
    for (let s = 0; s < pos.segment; s++) (this.st.segments as unknown[])[s] = undefined;
  }
  stats(): { bytesWritten: number; fsyncs: number; records: number; segments: number } {
    return { bytesWritten: 0, fsyncs: 0, records: 0, segments: this.st.segments.filter(Boolean).length };
  }
  async close(): Promise<void> {}
}
