/**
 * Full head chunks on disk (`<shard>/chunks_head/000001…`), so they leave the heap as in Prometheus ≥ 2.19: a
 * closed chunk is appended here and the head keeps only its time range and reference. The layout is the one
 * Prometheus's head chunk files use (docs/format.md "TSDB head chunks"). The files are a cache of what the WAL
 * holds: they are emptied when the shard opens (the WAL replay rebuilds the head) and a file is deleted once
 * the head has been truncated past every chunk in it.
 *
 * Appends are synchronous (the head's append path is): chunks collect in a write buffer that is written out
 * with one write when it reaches `FLUSH_BYTES`; a read of a chunk still in the buffer is served from it.
 * A full disk does not fail an append or a WAL replay (which cut chunks in the middle of updating the head):
 * the chunks stay buffered, in memory as before head chunks were written out, and the next flush past
 * another `FLUSH_BYTES` writes them at the same offsets.
 */
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { uvarintAt } from '../codec/byte-buf.ts';
import { crc32c } from '../codec/crc32c.ts';
import { CorruptionError } from '../errors.ts';
import { PROM_HEAD_CHUNKS_MAGIC, PROM_HEAD_CHUNKS_VERSION, TSDB_CHUNK_ENC_XOR } from '../codec/format-ids.ts';

const TWO32 = 4294967296;
const HEADER_BYTES = 8;
/** Largest head chunk file, as Prometheus's. */
const MAX_FILE_BYTES = 128 * 1024 * 1024;
const FLUSH_BYTES = 1024 * 1024;

interface ChunkFile { seq: number; fd: number; maxt: number }

export class HeadChunkFiles {
  private readonly files = new Map<number, ChunkFile>();
  private cur: ChunkFile | null = null;
  /** Bytes of the current file already written out. */
  private written = 0;
  private buf = Buffer.allocUnsafe(FLUSH_BYTES + 4096);
  private buffered = 0;
  /** Buffered bytes at which `write` flushes next (moved on by FLUSH_BYTES when the disk is full). */
  private flushAt = FLUSH_BYTES;
  private readonly head = Buffer.alloc(64);

  constructor(readonly dir: string, private readonly maxFileBytes = MAX_FILE_BYTES) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }

  /** Appends a closed XOR chunk of `seriesRef`; returns its reference (file sequence · 2³² + offset). */
  write(seriesRef: number, mint: number, maxt: number, data: Uint8Array): number {
    const need = 8 + 8 + 8 + 1 + 5 + data.length + 4;
    if (this.cur === null || this.written + this.buffered + need > this.maxFileBytes) this.nextFile();
    this.reserve(need);
    const ref = this.cur!.seq * TWO32 + this.written + this.buffered;
    const b = this.buf, start = this.buffered;
    let p = start;
    p = putU64(b, p, seriesRef); p = putU64(b, p, mint); p = putU64(b, p, maxt);
    b[p++] = TSDB_CHUNK_ENC_XOR;
    let n = data.length;
    while (n >= 0x80) { b[p++] = (n & 0x7f) | 0x80; n >>>= 7; }
    b[p++] = n;
    b.set(data, p); p += data.length;
    b.writeUInt32BE(crc32c(b.subarray(start, p)), p); p += 4;
    this.buffered = p;
    if (maxt > this.cur!.maxt) this.cur!.maxt = maxt;
    if (this.buffered >= this.flushAt) this.flushUnlessFull();
    return ref;
  }

  /** The XOR payload of the chunk at `ref`. */
  read(ref: number): Uint8Array {
    const seq = Math.floor(ref / TWO32), off = ref % TWO32;
    const f = this.files.get(seq);
    if (!f) throw new CorruptionError(this.fileName(seq), off, 'head chunk file was truncated away');
    if (f === this.cur && off >= this.written) return this.decode(this.buf.subarray(off - this.written, this.buffered), seq, off, true);
    const got = readSync(f.fd, this.head, 0, this.head.length, off);
    const hdr = this.head.subarray(0, got);
    const { len, dataAt } = chunkLength(hdr, this.fileName(seq), off);
    const whole = Buffer.allocUnsafe(dataAt + len + 4);
    if (readSync(f.fd, whole, 0, whole.length, off) !== whole.length) throw new CorruptionError(this.fileName(seq), off, 'short head chunk read');
    return this.decode(whole, seq, off, false);
  }

  private decode(b: Buffer, seq: number, off: number, copy: boolean): Uint8Array {
    const { len, dataAt } = chunkLength(b, this.fileName(seq), off);
    if (b.readUInt32BE(dataAt + len) !== crc32c(b.subarray(0, dataAt + len))) throw new CorruptionError(this.fileName(seq), off, 'head chunk checksum mismatch');
    const data = b.subarray(dataAt, dataAt + len);
    return copy ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, len);
  }

  /** Deletes the files (not the one being written) whose chunks all end before `mint`. */
  truncateBefore(mint: number): void {
    for (const f of [...this.files.values()]) {
      if (f === this.cur || f.maxt >= mint) continue;
      closeSync(f.fd);
      this.files.delete(f.seq);
      rmSync(this.fileName(f.seq), { force: true });
    }
  }

  /** `flush`, except that a full disk leaves the chunks buffered (retried after another FLUSH_BYTES). */
  private flushUnlessFull(): void {
    try {
      this.flush();
      this.flushAt = FLUSH_BYTES;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOSPC' && code !== 'EDQUOT') throw e;
      this.flushAt = this.buffered + FLUSH_BYTES;
    }
  }

  /** Writes out the buffered chunks (positional writes: a failed flush can simply be repeated). */
  flush(): void {
    if (this.cur === null || this.buffered === 0) return;
    let done = 0;
    while (done < this.buffered) done += writeSync(this.cur.fd, this.buf, done, this.buffered - done, this.written + done);
    this.written += this.buffered;
    this.buffered = 0;
  }

  /** Flushes and closes the files; the files are closed even when the flush throws (then rethrows). */
  close(): void {
    try {
      this.flush();
    } finally {
      for (const f of this.files.values()) closeSync(f.fd);
      this.files.clear();
      this.cur = null;
    }
  }

  private nextFile(): void {
    this.flush();
    const seq = this.cur === null ? 0 : this.cur.seq + 1;
    const fd = openSync(this.fileName(seq), 'w+');
    this.cur = { seq, fd, maxt: -Infinity };
    this.files.set(seq, this.cur);
    // The header goes out with the first flush, so a full disk does not fail the chunk that opens a file.
    this.written = 0;
    this.reserve(HEADER_BYTES);
    this.buf.fill(0, 0, HEADER_BYTES);
    this.buf.writeUInt32BE(PROM_HEAD_CHUNKS_MAGIC, 0);
    this.buf[4] = PROM_HEAD_CHUNKS_VERSION;
    this.buffered = HEADER_BYTES;
  }

  private reserve(n: number): void {
    if (this.buffered + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.buffered + n));
    this.buf.copy(next, 0, 0, this.buffered);
    this.buf = next;
  }

  private fileName(seq: number): string { return path.join(this.dir, String(seq + 1).padStart(6, '0')); }
}

function putU64(b: Buffer, p: number, x: number): number {
  // Timestamps and refs are exact JS integers; a negative time (before 1970) is written in two's complement.
  const hi = Math.floor(x / TWO32);
  b.writeUInt32BE(hi >>> 0, p);
  b.writeUInt32BE(x - hi * TWO32, p + 4);
  return p + 8;
}

/** The data length of the chunk starting at `b[0]` and where its data starts. */
function chunkLength(b: Uint8Array, file: string, off: number): { len: number; dataAt: number } {
  if (b.length < 26) throw new CorruptionError(file, off, 'truncated head chunk');
  // The length follows series ref, mint, maxt (8 bytes each) and the encoding byte.
  const v = uvarintAt(b, 25, b.length, 5);
  if (!v) throw new CorruptionError(file, off, 'bad head chunk length');
  return { len: v.value, dataAt: v.next };
}
