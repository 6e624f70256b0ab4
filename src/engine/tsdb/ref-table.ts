/**
 * Series ref → head slot, as an open-addressing table of slot numbers in one Int32Array (linear probing,
 * backward-shift deletion, so no tombstones): the ref of an entry is read from the head's columns
 * (`SeriesColumns.ref`), not stored again. A `Map<number, number>` cost ~37 bytes per series at 100k series
 * (its hash table, heap snapshot); this costs 4 bytes per bucket at a load of at most 1/2, 8–16 bytes per series.
 */

const EMPTY = -1;

export class RefTable {
  private buckets = new Int32Array(64).fill(EMPTY);
  private mask = 63;
  private n = 0;

  /** `refOf(slot)` gives the ref of a slot in the table; it must not change while the slot is in it. */
  constructor(private readonly refOf: (slot: number) => number) {}

  get size(): number { return this.n; }

  /** The slot of `ref`, or -1. */
  get(ref: number): number {
    const b = this.buckets, mask = this.mask;
    for (let i = hashRef(ref) & mask; ; i = (i + 1) & mask) {
      const slot = b[i];
      if (slot === EMPTY || this.refOf(slot) === ref) return slot;
    }
  }

  /** Adds `slot`, whose ref is not in the table yet. */
  add(slot: number): void {
    if ((this.n + 1) * 2 > this.buckets.length) this.grow();
    this.place(slot);
    this.n++;
  }

  /** Removes the entry of `ref`, if any. */
  delete(ref: number): void {
    const b = this.buckets, mask = this.mask;
    let i = hashRef(ref) & mask;
    for (; ; i = (i + 1) & mask) {
      if (b[i] === EMPTY) return;
      if (this.refOf(b[i]) === ref) break;
    }
    // Backward shift: move later entries of the probe run into the hole when their home is not after it.
    let hole = i;
    for (let j = (i + 1) & mask; b[j] !== EMPTY; j = (j + 1) & mask) {
      const home = hashRef(this.refOf(b[j])) & mask;
      // Invariant: the entry at j may fill the hole iff its home is not cyclically within (hole, j].
      if (((j - home) & mask) >= ((j - hole) & mask)) { b[hole] = b[j]; hole = j; }
    }
    b[hole] = EMPTY;
    this.n--;
  }

  private place(slot: number): void {
    const b = this.buckets, mask = this.mask;
    let i = hashRef(this.refOf(slot)) & mask;
    while (b[i] !== EMPTY) i = (i + 1) & mask;
    b[i] = slot;
  }

  private grow(): void {
    const old = this.buckets;
    this.buckets = new Int32Array(old.length * 2).fill(EMPTY);
    this.mask = this.buckets.length - 1;
    for (let i = 0; i < old.length; i++) if (old[i] !== EMPTY) this.place(old[i]);
  }
}

/** Mixes a ref (an integer below 2^53) into 32 bits: its two words, multiplied by a golden-ratio constant. */
function hashRef(ref: number): number {
  const h = Math.imul((ref | 0) ^ ((ref / 0x1_0000_0000) | 0), 0x9e3779b1);
  return h ^ (h >>> 15);
}
