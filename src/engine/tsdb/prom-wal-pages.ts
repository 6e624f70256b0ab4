/**
 * Prometheus's WAL page layout (docs/format.md "TSDB WAL (Prometheus's wlog)", Prometheus's
 * `tsdb/docs/format/wal.md`): a segment is a sequence of 32 KiB pages; a record is stored as one or more
 * fragments, none crossing a page boundary, each
 *
 *   ┌─────────────────────────────┬────────────────┬──────────────────┬────────────┐
 *   │ type <u8>: flags · kind     │ len <u16be>    │ crc32c <u32be>   │ len bytes  │
 *   └─────────────────────────────┴────────────────┴──────────────────┴────────────┘
 *
 * kind (low 3 bits) is full / first / middle / last, flag 0x08 marks a snappy-compressed record; the CRC covers
 * the fragment's bytes only. When fewer than 7 bytes are left in a page it is zero-padded, and kind 0 means
 * "the rest of this page is zeros". `FragmentEncoder` lays records out exactly as Prometheus's `WL.log` does, so
 * equal records give equal bytes; `FragmentDecoder` reassembles them and reports the first damage it finds.
 */
import { crc32c } from '../codec/crc32c.ts';
import {
  PROM_WAL_FLAG_SNAPPY, PROM_WAL_FLAG_ZSTD, PROM_WAL_FRAG_FIRST, PROM_WAL_FRAG_FULL, PROM_WAL_FRAG_KIND_MASK,
  PROM_WAL_FRAG_LAST, PROM_WAL_FRAG_MIDDLE, PROM_WAL_FRAG_PAGE_TERM, PROM_WAL_FRAGMENT_HEADER_SIZE, PROM_WAL_PAGE_SIZE,
} from '../codec/format-ids.ts';

const PAGE = PROM_WAL_PAGE_SIZE;
const HDR = PROM_WAL_FRAGMENT_HEADER_SIZE;

/**
 * Lays records out into a reused buffer whose first byte belongs at segment offset `base`. The owner writes
 * `buf[0..used)` to the segment, then calls `flushed()`. Not re-entrant (one per writer).
 */
export class FragmentEncoder {
  buf: Uint8Array;
  used = 0;
  /** Segment offset of buf[0]. */
  base = 0;

  constructor(initialBytes = 64 * 1024) { this.buf = new Uint8Array(initialBytes); }

  /** Segment offset the next byte goes to. */
  get pos(): number { return this.base + this.used; }

  /** Starts a new segment (nothing may be buffered). */
  startSegment(): void { this.base = 0; this.used = 0; }

  /** The buffered bytes were written: the buffer now starts at the segment's end. */
  flushed(): void { this.base += this.used; this.used = 0; }

  /**
   * True when a record of `len` stored bytes fits in what is left of a segment of `segmentBytes` (Prometheus's
   * rule: the free bytes of this page and of the pages after it, less one header per page). Call after
   * `padIfFull`, as the writer does.
   */
  fits(len: number, segmentBytes: number): boolean {
    const inPage = this.pos % PAGE;
    const donePages = Math.floor(this.pos / PAGE);
    const left = (PAGE - inPage - HDR) + (PAGE - HDR) * (segmentBytes / PAGE - donePages - 1);
    return len <= left;
  }

  /** Zero-pads the current page when a fragment header no longer fits in it. */
  padIfFull(): void {
    const inPage = this.pos % PAGE;
    if (inPage !== 0 && PAGE - inPage < HDR) this.zeros(PAGE - inPage);
  }

  /** Zero-pads to the end of the current page unless at a page boundary (closing a segment). */
  padPage(): void {
    const inPage = this.pos % PAGE;
    if (inPage !== 0) this.zeros(PAGE - inPage);
  }

  /** Appends `rec` (stored bytes; `snappy` says they are compressed) as fragments. */
  append(rec: Uint8Array, snappy: boolean): void {
    this.padIfFull();
    // Per fragment a header and at most a header's worth of page padding, plus a leading padding.
    this.ensure(rec.length + 2 * HDR * (Math.ceil(rec.length / (PAGE - HDR)) + 2));
    const flag = snappy ? PROM_WAL_FLAG_SNAPPY : 0;
    const b = this.buf;
    let off = 0;
    // One pass even for an empty record, as Prometheus writes empty records too. Invariant: rec[0..off) stored.
    for (let i = 0; i === 0 || off < rec.length; i++) {
      const inPage = this.pos % PAGE;
      const l = Math.min(rec.length - off, PAGE - inPage - HDR);
      const last = off + l === rec.length;
      const kind = i === 0 ? (last ? PROM_WAL_FRAG_FULL : PROM_WAL_FRAG_FIRST) : (last ? PROM_WAL_FRAG_LAST : PROM_WAL_FRAG_MIDDLE);
      const part = rec.subarray(off, off + l);
      const at = this.used;
      b[at] = kind | flag;
      b[at + 1] = l >>> 8; b[at + 2] = l & 0xff;
      const crc = crc32c(part);
      b[at + 3] = crc >>> 24; b[at + 4] = (crc >>> 16) & 0xff; b[at + 5] = (crc >>> 8) & 0xff; b[at + 6] = crc & 0xff;
      b.set(part, at + HDR);
      this.used = at + HDR + l;
      this.padIfFull();
      off += l;
    }
  }

  private zeros(n: number): void {
    this.ensure(n);
    this.buf.fill(0, this.used, this.used + n);
    this.used += n;
  }

  private ensure(n: number): void {
    if (this.used + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.used + n));
    next.set(this.buf.subarray(0, this.used));
    this.buf = next;
  }
}

/** First damage found by the decoder: the segment offset to truncate at and why. */
export interface Damage { offset: number; reason: string }

/** Called with each whole record: stored bytes (compressed when `snappy`), valid only during the call. */
export type FragmentSink = (stored: Uint8Array, snappy: boolean, offset: number) => void;

/**
 * Reassembles records from a segment's bytes, fed in page-aligned pieces. Keeps the fragments of a record that
 * spans pieces. One per segment read.
 */
export class FragmentDecoder {
  private rec = new Uint8Array(0);
  private recLen = 0;
  private inRecord = false;
  private recStart = 0;
  private recSnappy = false;

  /**
   * Decodes `bytes`, which start at segment offset `at` (a multiple of the page size) and hold whole pages
   * except at the end of the segment. Returns the first damage, or null.
   */
  feed(bytes: Uint8Array, at: number, sink: FragmentSink): Damage | null {
    for (let page = 0; page < bytes.length; page += PAGE) {
      const end = Math.min(page + PAGE, bytes.length);
      const d = this.page(bytes, page, end, at, sink);
      if (d !== null) return d;
    }
    return null;
  }

  /** Call at the end of the segment: a record whose last fragment never came is damage. */
  finish(): Damage | null {
    return this.inRecord ? { offset: this.recStart, reason: 'last record is torn (its last fragment is missing)' } : null;
  }

  private damage(offset: number, reason: string): Damage {
    return { offset: this.inRecord ? this.recStart : offset, reason };
  }

  private page(b: Uint8Array, p: number, end: number, at: number, sink: FragmentSink): Damage | null {
    while (p < end) {
      const type = b[p];
      const kind = type & PROM_WAL_FRAG_KIND_MASK;
      if (kind === PROM_WAL_FRAG_PAGE_TERM || end - p < HDR) {
        for (let q = p; q < end; q++) {
          if (b[q] !== 0) return this.damage(at + p, kind === 0 ? 'unexpected non-zero byte in page padding' : 'fragment header cut off');
        }
        return null;
      }
      if ((type & PROM_WAL_FLAG_ZSTD) !== 0) return this.damage(at + p, 'zstd-compressed record (not supported; use snappy or no WAL compression)');
      if ((type & ~(PROM_WAL_FRAG_KIND_MASK | PROM_WAL_FLAG_SNAPPY)) !== 0 || kind > PROM_WAL_FRAG_LAST) {
        return this.damage(at + p, `invalid fragment type byte 0x${type.toString(16)}`);
      }
      const len = (b[p + 1] << 8) | b[p + 2];
      const start = p + HDR;
      if (start + len > end) return this.damage(at + p, `fragment of ${len} bytes runs past the end of its page`);
      const part = b.subarray(start, start + len);
      const crc = ((b[p + 3] << 24) | (b[p + 4] << 16) | (b[p + 5] << 8) | b[p + 6]) >>> 0;
      if (crc32c(part) !== crc) return this.damage(at + p, 'fragment checksum mismatch');
      const first = kind === PROM_WAL_FRAG_FULL || kind === PROM_WAL_FRAG_FIRST;
      if (first === this.inRecord) return this.damage(at + p, this.inRecord ? 'new record starts inside a record' : 'fragment continues no record');
      const snappy = (type & PROM_WAL_FLAG_SNAPPY) !== 0;
      if (kind === PROM_WAL_FRAG_FULL) sink(part, snappy, at + p);
      else {
        if (kind === PROM_WAL_FRAG_FIRST) { this.inRecord = true; this.recStart = at + p; this.recLen = 0; this.recSnappy = snappy; }
        this.add(part);
        if (kind === PROM_WAL_FRAG_LAST) { this.inRecord = false; sink(this.rec.subarray(0, this.recLen), this.recSnappy, this.recStart); }
      }
      p = start + len;
    }
    return null;
  }

  private add(part: Uint8Array): void {
    if (this.recLen + part.length > this.rec.length) {
      const next = new Uint8Array(Math.max(this.rec.length * 2, this.recLen + part.length, PAGE));
      next.set(this.rec.subarray(0, this.recLen));
      this.rec = next;
    }
    this.rec.set(part, this.recLen);
    this.recLen += part.length;
  }
}
