/**
 * Checked positioned I/O on segment files (docs/format.md "Document segments"). Every segment file starts with
 * the 8-byte file header and is a sequence of regions; a region is
 *
 *   ┌──────────────┬─────────────────┬───────────────┐
 *   │ len u32 LE   │ crc32c u32 LE   │ payload (len) │
 *   └──────────────┴─────────────────┴───────────────┘
 *
 * and is read whole with one positioned read (its total length is known from the index that points at it) and
 * verified before any byte of it is decoded, so damage is reported as `CorruptionError` with file and offset,
 * never decoded into a wrong answer. Reads go through the page cache; nothing is memory-mapped.
 */
import { closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import { crc32c } from '../codec/crc32c.ts';
import { checkFileHeader, encodeFileHeader } from '../codec/file-header.ts';
import { FILE_HEADER_SIZE } from '../codec/format-ids.ts';
import { CorruptionError } from '../errors.ts';

export const REGION_HEADER_SIZE = 8;

/** A region's place in its file: offset of its header and total length (header included). */
export interface RegionRef { off: number; len: number }

/** What decoders read regions from. */
export interface RegionSource {
  readonly path: string;
  readRegion(ref: RegionRef): Uint8Array;
  /**
   * As `readRegion`, into a buffer the next transient read of this thread reuses: for decoders that copy out
   * what they keep (postings, stored blocks). A fresh buffer per read is an off-heap allocation, and a search
   * reads dozens of regions: their churn drove V8's external-memory garbage collections.
   */
  readRegionTransient(ref: RegionRef): Uint8Array;
}

/** The reused buffer of transient reads (grown on demand; reads are synchronous, so one per thread is enough). */
let transient = new Uint8Array(64 * 1024);

export class SegmentFileReader implements RegionSource {
  private fd: number;
  readonly sizeBytes: number;

  constructor(readonly path: string, magic: number, minVersion: number, maxVersion: number) {
    this.fd = openSync(path, 'r');
    try {
      this.sizeBytes = fstatSync(this.fd).size;
      const head = this.readRaw(0, Math.min(FILE_HEADER_SIZE, this.sizeBytes));
      checkFileHeader(head, path, magic, minVersion, maxVersion);
    } catch (e) {
      closeSync(this.fd);
      throw e;
    }
  }

  /** `len` bytes at `off` into a fresh (8-byte aligned) buffer; a short file is corruption. */
  readRaw(off: number, len: number): Uint8Array {
    return this.readInto(off, len, new Uint8Array(len));
  }

  /** `len` bytes at `off` into the start of `out` (8-byte aligned); returns that view. */
  private readInto(off: number, len: number, out: Uint8Array): Uint8Array {
    let got = 0;
    while (got < len) {
      const n = readSync(this.fd, out, got, len - got, off + got);
      if (n === 0) throw new CorruptionError(this.path, off + got, `file ends at ${off + got}, needed ${off + len}`);
      got += n;
    }
    return out.byteLength === len ? out : out.subarray(0, len);
  }

  /** The payload of the region at `ref`, checked against its length and CRC. */
  readRegion(ref: RegionRef): Uint8Array {
    this.checkBounds(ref);
    return this.checked(ref, this.readRaw(ref.off, ref.len));
  }

  readRegionTransient(ref: RegionRef): Uint8Array {
    this.checkBounds(ref);
    if (transient.byteLength < ref.len) transient = new Uint8Array(Math.max(ref.len, transient.byteLength * 2));
    return this.checked(ref, this.readInto(ref.off, ref.len, transient));
  }

  private checkBounds(ref: RegionRef): void {
    if (ref.off + ref.len > this.sizeBytes || ref.len < REGION_HEADER_SIZE) {
      throw new CorruptionError(this.path, ref.off, `region of ${ref.len} bytes at ${ref.off} runs past the file end (${this.sizeBytes})`);
    }
  }

  private checked(ref: RegionRef, buf: Uint8Array): Uint8Array {
    const len = uint32le(buf, 0), crc = uint32le(buf, 4);
    if (len !== ref.len - REGION_HEADER_SIZE) throw new CorruptionError(this.path, ref.off, `region length ${len}, index says ${ref.len - REGION_HEADER_SIZE}`);
    const payload = buf.subarray(REGION_HEADER_SIZE);
    if (crc32c(payload) !== crc) throw new CorruptionError(this.path, ref.off, 'region checksum mismatch');
    return payload;
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }
}

/**
 * A segment file whose descriptor opens (and header is checked) on the first read, so a shard with many
 * segments holds descriptors only for the files its queries touch.
 */
export class LazyFileReader implements RegionSource {
  private reader: SegmentFileReader | null = null;
  private closed = false;
  constructor(readonly path: string, private readonly magic: number, private readonly minVersion: number, private readonly maxVersion: number) {}

  open(): SegmentFileReader {
    if (this.reader) return this.reader;
    if (this.closed) throw new Error(`${this.path} is closed`);
    this.reader = new SegmentFileReader(this.path, this.magic, this.minVersion, this.maxVersion);
    return this.reader;
  }

  readRegion(ref: RegionRef): Uint8Array { return this.open().readRegion(ref); }
  readRegionTransient(ref: RegionRef): Uint8Array { return this.open().readRegionTransient(ref); }

  close(): void {
    this.closed = true;
    this.reader?.close();
    this.reader = null;
  }
}

const WRITE_BUFFER_BYTES = 256 * 1024;

/** Appends regions to a new segment file through a write buffer; `finish` flushes (and optionally fsyncs). */
export class SegmentFileWriter {
  private readonly fd: number;
  private readonly buf = new Uint8Array(WRITE_BUFFER_BYTES);
  private readonly view = new DataView(this.buf.buffer);
  private used = 0;
  /** Bytes written so far (header included), i.e. the offset of the next region. */
  offset = 0;

  constructor(readonly path: string, magic: number, version: number) {
    this.fd = openSync(path, 'wx');
    this.raw(encodeFileHeader(magic, version));
  }

  /** Appends `payload` as a region and returns where it went. */
  region(payload: Uint8Array): RegionRef {
    const off = this.offset;
    // The header goes straight into the write buffer: a segment write makes a region per frequent term, and a
    // header array and DataView each were garbage.
    if (this.used + REGION_HEADER_SIZE > WRITE_BUFFER_BYTES) this.flushBuffer();
    this.view.setUint32(this.used, payload.byteLength, true);
    this.view.setUint32(this.used + 4, crc32c(payload), true);
    this.used += REGION_HEADER_SIZE;
    this.offset += REGION_HEADER_SIZE;
    this.raw(payload);
    return { off, len: REGION_HEADER_SIZE + payload.byteLength };
  }

  private raw(bytes: Uint8Array): void {
    if (bytes.byteLength >= WRITE_BUFFER_BYTES) {
      this.flushBuffer();
      this.writeAll(bytes);
    } else {
      if (this.used + bytes.byteLength > WRITE_BUFFER_BYTES) this.flushBuffer();
      this.buf.set(bytes, this.used);
      this.used += bytes.byteLength;
    }
    this.offset += bytes.byteLength;
  }

  private flushBuffer(): void {
    if (this.used === 0) return;
    this.writeAll(this.buf.subarray(0, this.used));
    this.used = 0;
  }

  private writeAll(bytes: Uint8Array): void {
    let done = 0;
    while (done < bytes.byteLength) done += writeSync(this.fd, bytes, done, bytes.byteLength - done);
  }

  /** Flushes, optionally fsyncs, closes; returns the file size. */
  finish(sync: boolean): number {
    this.flushBuffer();
    if (sync) fsyncSync(this.fd);
    closeSync(this.fd);
    return this.offset;
  }

  /** Closes without caring about the contents (a failed write; the caller deletes the file). */
  abandon(): void {
    try { closeSync(this.fd); } catch { /* already closed */ }
  }
}

/** The little-endian uint32 at `at` (no DataView per read region). */
function uint32le(b: Uint8Array, at: number): number {
  return (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
}
