/**
 * Builds a `PackedSelect` (packed-series.ts): label sets interned into one symbol table, chunk bytes appended
 * to one growing buffer, and each series' chunks listed by where their bytes are. Bytes can be stored before
 * the series they belong to is known (`store`, then `chunkAt`): a select over many blocks reads them block by
 * block and lists them series by series.
 */
import type { Labels } from './api.ts';
import type { PackedSelect } from './packed-series.ts';
import { XorAppender } from './xor-chunk.ts';

/** Address space a packer reserves for its chunk bytes (a reply past it fails the select). */
const MAX_PACKED_BYTES = 2 ** 31;

/**
 * Where a select's chunk bytes are packed while they fit (`SelectPacker.data`), reused by every select of the
 * thread: its pages stay committed. Not re-entrant (a packer runs from start to `done` synchronously).
 */
const smallPackBytes = new Uint8Array(64 * 1024);

/** Samples per chunk when a series is (re-)encoded: the count field allows 65,535; this keeps the bit writer small. */
export const PACK_CHUNK_SAMPLES = 1024;

export class SelectPacker {
  private readonly ids = new Map<string, number>();
  private readonly symbols: string[] = [];
  private refs: number[] = [];
  private lOff: number[] = [0];
  private cOff: number[] = [0];
  private bStart = new Uint32Array(64);
  private bEnd = new Uint32Array(64);
  private chunks = 0;
  /**
   * The chunk bytes: first in this thread's `smallPackBytes`, copied out at their length when the select is
   * done; once they outgrow it, in a resizable buffer that grows in place and is handed over at its final
   * length — a buffer doubled by copying, then cut to length by one more copy, touched three to four times the
   * bytes it sent, and on this machine a first-touched page costs ~15 µs (packing a 30-day select of 35 MB
   * took ~33,000 page faults, docs/benchmarks.md, issue 11). Only address space is reserved up front, but
   * reserving 2 GB, committing pages and giving them back at the end cost an instant query's select (a few
   * tens of KB) a tenth of its time in mmap, madvise and page faults.
   */
  private buf: ArrayBuffer | null = null;
  private data = smallPackBytes;
  private len = 0;
  private readonly enc = new XorAppender(256);

  series(labels: Labels): void {
    for (let j = 0; j < labels.length; j++) { this.refs.push(this.sym(labels[j].name)); this.refs.push(this.sym(labels[j].value)); }
    this.lOff.push(this.refs.length);
  }

  /** Stores chunk bytes (copied: block chunks are views of reused read windows); returns where they start. */
  store(b: Uint8Array): number {
    const at = this.len, need = at + b.length;
    if (need > this.data.length) this.grow(need);
    this.data.set(b, at);
    this.len = need;
    return at;
  }

  /** Encodes samples `[from, to)` (at most `PACK_CHUNK_SAMPLES`) as one stored chunk; returns where it starts. */
  storeSamples(t: ArrayLike<number>, v: ArrayLike<number>, from: number, to: number): number {
    const a = this.enc;
    // The appender writes into its own buffer (grown as needed), zeroed again after its chunk is copied out.
    a.resume(a.buf, 0, a.buf.length, 16, 0, 0, 0, 0, 0, 0xff, 0);
    for (let k = from; k < to; k++) a.append(t[k], v[k]);
    const b = a.bytes();
    const at = this.store(b);
    a.buf.fill(0, 0, b.length + 1);
    return at;
  }

  /** Stored bytes `[start, end)`, valid until `done`. */
  storedView(start: number, end: number): Uint8Array { return this.data.subarray(start, end); }

  /** Lists stored bytes `[start, end)` as the current series' next chunk. */
  chunkAt(start: number, end: number): void {
    if (this.chunks === this.bStart.length) {
      const s = new Uint32Array(this.chunks * 2), e = new Uint32Array(this.chunks * 2);
      s.set(this.bStart); e.set(this.bEnd);
      this.bStart = s; this.bEnd = e;
    }
    this.bStart[this.chunks] = start;
    this.bEnd[this.chunks] = end;
    this.chunks++;
  }

  /** Encodes `n` decoded samples as chunks of the current series. */
  samples(t: ArrayLike<number>, v: ArrayLike<number>, n: number): void {
    for (let i = 0; i < n; i += PACK_CHUNK_SAMPLES) {
      const at = this.storeSamples(t, v, i, Math.min(n, i + PACK_CHUNK_SAMPLES));
      this.chunkAt(at, this.len);
    }
  }

  endSeries(): void { this.cOff.push(this.chunks); }

  done(mint: number, maxt: number, sorted: boolean): PackedSelect {
    return {
      symbols: this.symbols, refs: Uint32Array.from(this.refs), lOff: Uint32Array.from(this.lOff), cOff: Uint32Array.from(this.cOff),
      bStart: this.bStart.slice(0, this.chunks), bEnd: this.bEnd.slice(0, this.chunks), data: this.finalData(), mint, maxt, sorted,
    };
  }

  /** Room for `need` chunk bytes: the reserved buffer from the first time they outgrow `smallPackBytes`. */
  private grow(need: number): void {
    if (need > MAX_PACKED_BYTES) throw new RangeError(`a select's chunks exceed ${MAX_PACKED_BYTES} bytes`);
    const size = Math.min(MAX_PACKED_BYTES, Math.max(need, 2 * this.data.length));
    if (this.buf === null) {
      this.buf = new ArrayBuffer(size, { maxByteLength: MAX_PACKED_BYTES });
      const data = new Uint8Array(this.buf);
      data.set(this.data.subarray(0, this.len));
      this.data = data;
    } else {
      this.buf.resize(size);
    }
  }

  /** The chunk bytes as one view spanning its whole buffer (transferred as it is, see `owning` in codec/msgpack). */
  private finalData(): Uint8Array {
    if (this.buf === null) return this.data.slice(0, this.len);
    this.buf.resize(this.len);
    return new Uint8Array(this.buf, 0, this.len);
  }

  private sym(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) { id = this.symbols.length; this.symbols.push(s); this.ids.set(s, id); }
    return id;
  }
}
