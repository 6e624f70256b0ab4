/**
 * Positioned reads of an immutable file through a read-ahead window, standing in for Prometheus's mmap of
 * block files: a select walks series entries and chunks in ascending file order, and one `readSync` per
 * 4-byte length plus one per body (thousands per query) cost more than the data itself. The window grows
 * while reads move forward within reach of it (up to `MAX_WINDOW_BYTES`) and shrinks back after a jump, so
 * scattered lookups do not copy large windows.
 *
 * The windows a thread keeps between reads are bounded together (`KEPT_WINDOW_BYTES`), least recently
 * refilled first out: every open block keeps one for its index and one per chunk file, and with hundreds of
 * blocks (30 days of 2 h blocks) the windows a query had grown stayed resident after it, up to 512 KB each:
 * up to 0.4 GB per shard worker (docs/benchmarks.md, issue 11). Prometheus reads the same bytes through memory maps,
 * which the kernel may drop.
 *
 * A select reads hundreds of chunk files and indexes once each, and copies or decodes what it reads at once,
 * so its windows (half a GB per worker over the 30-day query list) were garbage as soon as the next one was
 * read, and stayed resident until V8's external-memory pressure collected them (docs/benchmarks.md, issue 11).
 * Inside `readingThroughSharedWindows`, the files of one class (chunk files; indexes) all refill one window
 * of the thread's instead (`SharedWindow`), overwriting it.
 *
 * Compaction reads its inputs' chunk files once, front to back, and copies each chunk into the new block
 * before it reads the next: through readers of its own made `inPlace`, each refill overwrites that reader's
 * window. With a new window per refill, compacting 30 days of 2 h blocks made 2,620 windows (470 MB) of garbage
 * in the compacting shard worker (docs/benchmarks.md, issue 11).
 */
import { readSync } from 'node:fs';

const MIN_WINDOW_BYTES = 4096;
const MAX_WINDOW_BYTES = 512 * 1024;
/** Window bytes this thread keeps between reads, over all files; a window being read is never dropped. */
const KEPT_WINDOW_BYTES = 8 * 1024 * 1024;
const EMPTY = Buffer.alloc(0);

/** The files holding a window, least recently refilled first (a Set keeps insertion order), and their bytes. Per thread. */
const holding = new Set<ReadAheadFile>();
let heldBytes = 0;

/** Window bytes this thread keeps now (for tests and memory figures). */
export function keptWindowBytes(): number { return heldBytes; }

/**
 * Windows of `inPlace` readers that were closed, for the thread's next ones: compaction makes readers per pass
 * (one per input chunk file, 530 over 30 days of 2 h blocks), and a window each was ~0.2 GB of garbage.
 */
const spareInPlaceWindows: Buffer[] = [];
const SPARE_IN_PLACE_WINDOWS = 4;

/** Whether `readingThroughSharedWindows` is running, and the shared windows refilled during it. */
let sharingDepth = 0;
const sharedInUse = new Set<SharedWindow>();

/**
 * One window that a class of files (a block's chunk files; block indexes) refills in turn inside
 * `readingThroughSharedWindows`, each refill overwriting the last, instead of a new window per refill. One per
 * class, so that reads alternating between an index and a chunk file do not throw each other's bytes away.
 */
export class SharedWindow {
  buf: Buffer = EMPTY;
  /** The file whose bytes `buf` holds now. */
  owner: ReadAheadFile | null = null;

  /** The window, at least `n` bytes, taken over by `file` (the file that held it forgets it). */
  take(file: ReadAheadFile, n: number): Buffer {
    if (this.owner !== null && this.owner !== file) this.owner.dropShared();
    if (this.buf.length < n) this.buf = Buffer.allocUnsafe(Math.max(n, MAX_WINDOW_BYTES));
    this.owner = file;
    sharedInUse.add(this);
    return this.buf;
  }
}

/**
 * Runs `read` (synchronous: nothing else runs on the thread meanwhile) with every refill of a file made with a
 * `SharedWindow` going into that shared window, overwriting it. So a view such a file hands out inside `read`
 * is valid only until the next read of a file of the same window: `read` must be done with each view (copy it,
 * decode it) before it reads again. Views handed out before the call keep their own windows and stay valid;
 * after it, the files refill into windows of their own again.
 */
export function readingThroughSharedWindows<T>(read: () => T): T {
  sharingDepth++;
  try {
    return read();
  } finally {
    if (--sharingDepth === 0) {
      for (const w of sharedInUse) { w.owner?.dropShared(); w.owner = null; }
      sharedInUse.clear();
    }
  }
}

export class ReadAheadFile {
  private buf: Buffer = Buffer.alloc(0);
  /** File offset of `buf[0]`; `len` valid bytes. */
  private start = 0;
  private len = 0;
  private window = MIN_WINDOW_BYTES;

  /**
   * `shared`: the window this file refills inside `readingThroughSharedWindows` (only for files whose callers
   * there are done with what they read before reading again). `inPlace`: a reader of one caller's that is done
   * with each view before it reads again: every refill overwrites its one window, which is not among the
   * thread's kept windows (the caller ends with `closeInPlace`).
   */
  constructor(private readonly fd: number, readonly sizeBytes: number, private readonly shared: SharedWindow | null = null,
    private readonly inPlace = false) {}

  /**
   * Up to `n` bytes at `off` (fewer only at the end of the file). The view stays valid after later reads
   * (a refill allocates a new window rather than overwriting the old one), except for an `inPlace` reader.
   */
  read(off: number, n: number): Buffer {
    const at = this.at(off, n);
    return this.buf.subarray(at, Math.min(at + n, this.len));
  }

  /**
   * Makes the window hold `[off, off + n)` (up to the end of the file) and returns where `off` is in
   * `windowBytes`, valid until the next `read` or `at`: the allocation-free form of `read` for callers that
   * take a few fields and one view (a select reads thousands of chunks, and each view is an object).
   */
  at(off: number, n: number): number {
    if (off >= this.start && off + n <= this.start + this.len) return off - this.start;
    // Invariant: forward reads near the window are the sequential pattern; anything else starts small again.
    const forward = this.len > 0 && off >= this.start && off < this.start + this.len + this.window;
    this.window = forward ? Math.min(this.window * 2, MAX_WINDOW_BYTES) : MIN_WINDOW_BYTES;
    const want = Math.max(n, Math.min(this.window, this.sizeBytes - off));
    if (this.shared !== null && sharingDepth > 0) return this.refillShared(this.shared, off, want);
    if (this.inPlace) return this.refillInPlace(off, want);
    const buf = Buffer.allocUnsafe(want);
    const got = want > 0 ? readSync(this.fd, buf, 0, want, off) : 0;
    this.release();
    this.buf = buf; this.start = off; this.len = got;
    holding.add(this);
    heldBytes += buf.length;
    // Invariant: `this` is the newest entry, so the loop stops at it at the latest.
    for (const f of holding) {
      if (heldBytes <= KEPT_WINDOW_BYTES || f === this) break;
      f.release();
    }
    return 0;
  }

  /** The window `at` positions into: its bytes `[0, windowLength)` are the file's from the window's start. */
  get windowBytes(): Buffer { return this.buf; }
  get windowLength(): number { return this.len; }

  /** `at`'s refill inside `readingThroughSharedWindows`: into the shared window, taken from the file that held it. */
  private refillShared(shared: SharedWindow, off: number, want: number): number {
    this.release();
    const buf = shared.take(this, want);
    const got = want > 0 ? readSync(this.fd, buf, 0, want, off) : 0;
    this.buf = buf; this.start = off; this.len = got;
    return 0;
  }

  /** `at`'s refill of an `inPlace` reader: into its own window, a spare one or a new one of the largest size. */
  private refillInPlace(off: number, want: number): number {
    if (this.buf.length < want) {
      const spare = want <= MAX_WINDOW_BYTES ? spareInPlaceWindows.pop() : undefined;
      this.buf = spare ?? Buffer.allocUnsafe(Math.max(want, MAX_WINDOW_BYTES));
    }
    this.len = want > 0 ? readSync(this.fd, this.buf, 0, want, off) : 0;
    this.start = off;
    return 0;
  }

  /** Forgets the shared window it holds, which another file (or the next `readingThroughSharedWindows`) takes over. */
  dropShared(): void {
    if (this.shared !== null && this.buf === this.shared.buf) { this.buf = EMPTY; this.start = 0; this.len = 0; }
  }

  /** An `inPlace` reader's end: its window goes to the thread's next such reader (its views are then invalid). */
  closeInPlace(): void {
    if (this.inPlace && this.buf.length === MAX_WINDOW_BYTES && spareInPlaceWindows.length < SPARE_IN_PLACE_WINDOWS) spareInPlaceWindows.push(this.buf);
    this.buf = EMPTY; this.start = 0; this.len = 0;
  }

  /** Drops the window (views handed out stay valid: they hold their own reference). */
  release(): void {
    if (!holding.delete(this)) return;
    heldBytes -= this.buf.length;
    this.buf = EMPTY; this.start = 0; this.len = 0;
  }
}
