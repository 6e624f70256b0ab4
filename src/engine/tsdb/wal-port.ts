/**
 * The part of `src/engine/wal`'s `Wal` the TSDB uses. The database takes a factory so that engine tests can
 * run over an in-memory log and the worker passes the real `Wal.open`.
 */
export interface WalPos { segment: number; offset: number }

export interface TsdbWal {
  appendBatch(records: { type: number; payload: Uint8Array }[]): Promise<WalPos>;
  replay(from: WalPos | null, onRecord: (type: number, payload: Uint8Array, pos: WalPos) => void): Promise<{ records: number; bytes: number }>;
  position(): WalPos;
  cut(): Promise<WalPos>;
  truncateBefore(pos: WalPos): Promise<void>;
  stats(): { bytesWritten: number; fsyncs: number; records: number; segments: number };
  close(): Promise<void>;
}

export type OpenWal = (dir: string) => Promise<TsdbWal>;
