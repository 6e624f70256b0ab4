/**
 * The head's open chunks, in one slab of shared pages instead of a byte array per series. A typed array of
 * its own costs a series some 270 bytes besides its data in Node 20 (the Uint8Array and ArrayBuffer objects,
 * the backing store's bookkeeping and malloc header), more than a typical open chunk holds; and an appender
 * growing by doubling leaves a third of it unused on average.
 *
 * Chunks live in slots of size classes (SLOT_BYTES, about ×1.4 apart, up to a worst-case 120-sample chunk);
 * each class carves its own 64 KiB pages into slots and keeps a stack of freed ones. A chunk that outgrows
 * its slot moves to the next class (`grow`), and its slot is freed when the chunk is closed. Slots are zeroed
 * when handed out: the bit writer relies on bytes past its write position being zero. Pages are never given
 * back; freed slots are reused by chunks of the same class, as the head's series come and go.
 *
 * A slot address is `page · PAGE_BYTES + offset`, a small integer. Not re-entrant (one per head).
 */
import { XorAppender } from './xor-chunk.ts';

/** Slot sizes in bytes; the largest holds a 120-sample chunk of worst-case samples (about 18 bytes each). */
export const SLOT_BYTES = [32, 48, 64, 96, 128, 176, 256, 352, 512, 704, 1024, 1408, 2048, 2816, 4096];
const PAGE_BYTES = 1 << 16;

export class ChunkSlab {
  private readonly pages: Uint8Array[] = [];
  /** Size class of each page. */
  private pageClass = new Uint8Array(64);
  /** Per class: the page being carved (-1 for none) and the next unused offset in it. */
  private readonly carving = new Int32Array(SLOT_BYTES.length).fill(-1);
  private readonly carved = new Int32Array(SLOT_BYTES.length);
  /** Per class: a stack of freed slot addresses. */
  private readonly free: Int32Array[] = SLOT_BYTES.map(() => new Int32Array(16));
  private readonly freeCount = new Int32Array(SLOT_BYTES.length);
  /** Bytes of the slots handed out and not freed. */
  slotBytes = 0;

  /** Bytes of all pages (what the slab holds, used or free). */
  get pageBytes(): number { return this.pages.length * PAGE_BYTES; }

  /** A zeroed slot of at least `bytes` bytes (at most the largest class). */
  alloc(bytes: number): number {
    let c = 0;
    while (SLOT_BYTES[c] < bytes) if (++c === SLOT_BYTES.length) throw new RangeError(`chunk slot of ${bytes} bytes`);
    const size = SLOT_BYTES[c];
    let addr: number;
    if (this.freeCount[c] > 0) addr = this.free[c][--this.freeCount[c]];
    else {
      if (this.carving[c] < 0 || this.carved[c] + size > PAGE_BYTES) this.newPage(c);
      addr = this.carving[c] * PAGE_BYTES + this.carved[c];
      this.carved[c] += size;
    }
    this.pages[(addr / PAGE_BYTES) | 0].fill(0, addr % PAGE_BYTES, addr % PAGE_BYTES + size);
    this.slotBytes += size;
    return addr;
  }

  /** Gives back the slot at `addr`. */
  release(addr: number): void {
    const c = this.pageClass[(addr / PAGE_BYTES) | 0];
    let stack = this.free[c];
    if (this.freeCount[c] === stack.length) {
      const g = new Int32Array(stack.length * 2);
      g.set(stack);
      this.free[c] = stack = g;
    }
    stack[this.freeCount[c]++] = addr;
    this.slotBytes -= SLOT_BYTES[c];
  }

  /** Moves the first `used` bytes of the slot at `addr` to a slot of at least `bytes`; returns its address. */
  grow(addr: number, used: number, bytes: number): number {
    const to = this.alloc(bytes);
    const from = this.pageOf(addr), at = this.offsetOf(addr);
    this.pageOf(to).set(from.subarray(at, at + used), this.offsetOf(to));
    this.release(addr);
    return to;
  }

  pageOf(addr: number): Uint8Array { return this.pages[(addr / PAGE_BYTES) | 0]; }
  offsetOf(addr: number): number { return addr % PAGE_BYTES; }
  sizeOf(addr: number): number { return SLOT_BYTES[this.pageClass[(addr / PAGE_BYTES) | 0]]; }

  /** A copy of `len` bytes at `addr`. */
  copy(addr: number, len: number): Uint8Array {
    const at = this.offsetOf(addr);
    return this.pageOf(addr).slice(at, at + len);
  }

  /** A view of `len` bytes at `addr`, valid until the slot is freed or moved. */
  view(addr: number, len: number): Uint8Array {
    const at = this.offsetOf(addr);
    return this.pageOf(addr).subarray(at, at + len);
  }

  private newPage(c: number): void {
    const p = this.pages.length;
    if (p === this.pageClass.length) {
      const g = new Uint8Array(p * 2);
      g.set(this.pageClass);
      this.pageClass = g;
    }
    this.pages.push(new Uint8Array(PAGE_BYTES));
    this.pageClass[p] = c;
    this.carving[c] = p;
    this.carved[c] = 0;
  }
}

/**
 * The XOR appender the head appends through, over chunks in a `ChunkSlab`: `resumeAt` loads a series' chunk
 * and writer state, `append` writes (moving the chunk to a larger slot when it fills its own), and the caller
 * reads the state back from the fields (`addr`, `bits`, `count`, `tDelta`, `leading`, `trailing`).
 */
export class SlabXorAppender extends XorAppender {
  /** Slot address of the chunk being appended to. */
  addr = -1;

  constructor(private readonly slab: ChunkSlab) { super(0); }

  /** Bits of the chunk written so far (its length is `ceil(bits / 8)` bytes). */
  get bits(): number { return this.bitLen - this.base * 8; }

  resumeAt(addr: number, bits: number, count: number, t: number, tDelta: number, vHi: number, vLo: number, leading: number, trailing: number): void {
    const slab = this.slab, base = slab.offsetOf(addr);
    this.addr = addr;
    this.resume(slab.pageOf(addr), base, base + slab.sizeOf(addr), bits, count, t, tDelta, vHi, vLo, leading, trailing);
  }

  protected override grow(need: number): void {
    const slab = this.slab, bits = this.bits;
    const used = (bits + 7) >>> 3;
    // Invariant: a slot is at least 1.375× the previous class, so one step usually suffices; ask for at least that.
    const addr = slab.grow(this.addr, used, Math.max(need - this.base, slab.sizeOf(this.addr) + 1));
    const base = slab.offsetOf(addr);
    this.addr = addr;
    this.buf = slab.pageOf(addr);
    this.base = base;
    this.end = base + slab.sizeOf(addr);
    this.bitLen = base * 8 + bits;
  }
}
