/**
 * Reads one segment of a Prometheus-format WAL (docs/format.md "TSDB WAL (Prometheus's wlog)", layout in
 * prom-wal-pages.ts) from disk in page-aligned pieces and hands each record, decompressed, to the caller.
 * Damage is reported, not acted on: the owner decides between truncating a torn tail, repairing and failing
 * (prom-wal.ts), or, for a Prometheus directory being imported, stopping there (prom-wal-import.ts).
 */
import { promises as fsp } from 'node:fs';
import { SNAPPY_SYNC_BUDGET_BYTES, uncompressSync, yieldToLoop } from '../codec/snappy.ts';
import { PROM_WAL_PAGE_SIZE } from '../codec/format-ids.ts';
import { FragmentDecoder, type Damage } from './prom-wal-pages.ts';

/** Read size: a whole number of pages, so no fragment is split between reads. */
const READ_PAGES = 128;

/** A whole record (type byte first), valid only during the call; `file` names its segment for errors. */
export type RecordCallback = (rec: Uint8Array, file: string) => void;

export interface SegmentReadResult { records: number; bytes: number; damage: Damage | null }

/** Reads segment `file` up to its end; stops at the first damage and returns it. */
export async function readSegmentFile(file: string, onRecord: RecordCallback): Promise<SegmentReadResult> {
  const res: SegmentReadResult = { records: 0, bytes: 0, damage: null };
  const fh = await fsp.open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const buf = Buffer.allocUnsafe(Math.min(size, READ_PAGES * PROM_WAL_PAGE_SIZE));
    const dec = new FragmentDecoder();
    let badSnappy: Damage | null = null;
    let sinceYield = 0;
    const sink = (stored: Uint8Array, snappy: boolean, offset: number): void => {
      if (badSnappy !== null) return;
      let rec = stored;
      if (snappy) {
        try { rec = uncompressSync(stored); } catch (err) {
          badSnappy = { offset, reason: `snappy data does not decode: ${(err as Error).message}` };
          return;
        }
        sinceYield += rec.length;
      }
      res.records++;
      res.bytes += rec.length;
      onRecord(rec, file);
    };
    for (let pos = 0; pos < size;) {
      const want = Math.min(buf.length, size - pos);
      const n = await readFully(fh, buf, want, pos);
      const found = dec.feed(buf.subarray(0, n), pos, sink);
      const d = (badSnappy as Damage | null) ?? found; // a record that did not decompress came first
      if (d !== null) { res.damage = d; return res; }
      if (n < want) break; // the file shrank while being read: what was read is its end
      pos += n;
      if (sinceYield >= SNAPPY_SYNC_BUDGET_BYTES) { await yieldToLoop(); sinceYield = 0; } // codec/snappy.ts memory trap
    }
    res.damage = dec.finish();
    return res;
  } finally {
    await fh.close();
  }
}

async function readFully(fh: fsp.FileHandle, buf: Buffer, n: number, position: number): Promise<number> {
  let off = 0;
  while (off < n) {
    const { bytesRead } = await fh.read(buf, off, n - off, position + off);
    if (bytesRead === 0) break; // the file shrank under us: decode what was read
    off += bytesRead;
  }
  return off;
}
