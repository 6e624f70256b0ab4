/**
 * Single-producer / single-consumer ring buffer of byte messages over a SharedArrayBuffer, for handing
 * work between two threads without postMessage. Layout (see docs/format.md "SPSC ring"):
 *
 *   bytes 0..3     head  (i32, bytes consumed, wraps modulo 2^32)   — written only by the consumer
 *   bytes 64..67   tail  (i32, bytes produced, wraps modulo 2^32)   — written only by the producer
 *   bytes 128..131 closed flag
 *   bytes 144..147 reader sleeping (i32 0/1)                        — set by the consumer before it waits
 *   bytes 160..163 writer sleeping (i32 0/1)                        — set by the producer before it waits
 *   bytes 192..    data, `capacity` bytes (a power of two)
 *
 * A message is `len u32 LE` at a 4-byte aligned position followed by `len` payload bytes, padded to 4;
 * the header therefore never straddles the end of the data area, while the payload may wrap. Head and
 * tail live on separate cache lines. The producer publishes with `Atomics.store(tail)` after copying; the
 * consumer advances `head` after copying out, which is what a producer waiting for space (back-pressure)
 * sleeps on. Blocking waits use `Atomics.wait` (worker threads, benchmarks); event-loop threads use the
 * `*Async` variants built on `Atomics.waitAsync`.
 *
 * Wake-ups are only sent to a side that said it sleeps (an eventcount): `Atomics.notify` takes V8's global
 * futex lock and, for a `waitAsync` waiter, posts a task to the other thread, which cost the HTTP thread
 * more than the rest of a small request's hand-off when it was called on every message. A side about to
 * wait stores its sleeping flag, then re-reads the index it waits on; the other side stores the index,
 * then swaps the flag to 0 and notifies when it was 1. All four accesses are sequentially consistent, so
 * at least one of the two sees the other's store: either the sleeper sees the new index and does not
 * wait, or the publisher sees the flag and wakes it.
 */
import { LimitExceededError } from '../errors.ts';

const HEAD = 0;
const TAIL = 16;
const CLOSED = 32;
const READER_SLEEPING = 36;
const WRITER_SLEEPING = 40;
const DATA_OFFSET = 192;

const align4 = (n: number): number => (n + 3) & ~3;

/** `Atomics.waitAsync` (V8, Node >= 16) is ES2024 in TypeScript's lib; the project targets ES2022. */
type WaitAsync = (a: Int32Array, index: number, value: number, timeout?: number) =>
  { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

export class SpscRing {
  readonly buffer: SharedArrayBuffer;
  readonly capacity: number;
  private readonly ctl: Int32Array;
  private readonly data: Uint8Array;
  private readonly view: DataView;

  private constructor(buffer: SharedArrayBuffer) {
    this.buffer = buffer;
    this.capacity = buffer.byteLength - DATA_OFFSET;
    if (this.capacity < 16 || (this.capacity & (this.capacity - 1)) !== 0) throw new RangeError('ring capacity must be a power of two >= 16');
    this.ctl = new Int32Array(buffer, 0, DATA_OFFSET / 4);
    this.data = new Uint8Array(buffer, DATA_OFFSET, this.capacity);
    this.view = new DataView(buffer, DATA_OFFSET, this.capacity);
  }

  /** A new ring with `capacity` data bytes (rounded up to a power of two). */
  static create(capacity: number): SpscRing {
    let c = 16;
    while (c < capacity) c *= 2;
    return new SpscRing(new SharedArrayBuffer(DATA_OFFSET + c));
  }

  /** The other thread's view of a ring created elsewhere. */
  static attach(buffer: SharedArrayBuffer): SpscRing { return new SpscRing(buffer); }

  /** Largest payload that can ever fit. */
  get maxMessage(): number { return this.capacity - 4; }

  /** Bytes currently queued (headers and padding included). */
  used(): number { return (Atomics.load(this.ctl, TAIL) - Atomics.load(this.ctl, HEAD)) | 0; }

  close(): void {
    Atomics.store(this.ctl, CLOSED, 1);
    Atomics.notify(this.ctl, TAIL);
    Atomics.notify(this.ctl, HEAD);
  }

  get closed(): boolean { return Atomics.load(this.ctl, CLOSED) === 1; }

  /**
   * Copies `msg` (followed by `body`, when given: one message of both, so a caller need not join a header and
   * its payload into a new array) in if there is room now; false when the ring is full (the caller waits and
   * retries).
   */
  tryWrite(msg: Uint8Array, body?: Uint8Array): boolean {
    const len = msg.byteLength + (body ? body.byteLength : 0);
    const need = 4 + align4(len);
    if (need > this.capacity) {
      throw LimitExceededError.of('LIMIT_EXCEEDED', [`message of ${len} bytes exceeds the ring's ${this.maxMessage}-byte limit`]);
    }
    const tail = Atomics.load(this.ctl, TAIL);
    const head = Atomics.load(this.ctl, HEAD);
    if (this.capacity - ((tail - head) | 0) < need) return false;
    const mask = this.capacity - 1;
    const at = tail & mask;
    this.view.setUint32(at, len, true);
    const start = (at + 4) & mask;
    this.copyIn(msg, start);
    if (body) this.copyIn(body, (start + msg.byteLength) & mask);
    Atomics.store(this.ctl, TAIL, (tail + need) | 0);
    if (Atomics.exchange(this.ctl, READER_SLEEPING, 0) === 1) Atomics.notify(this.ctl, TAIL);
    return true;
  }

  /** Copies `src` into the data area from position `start`, wrapping at its end. */
  private copyIn(src: Uint8Array, start: number): void {
    const first = Math.min(src.byteLength, this.capacity - start);
    this.data.set(first === src.byteLength ? src : src.subarray(0, first), start);
    if (first < src.byteLength) this.data.set(src.subarray(first), 0);
  }

  /** Copies the next message out, or null when the ring is empty. */
  tryRead(): Uint8Array | null {
    const len = this.nextLength();
    if (len < 0) return null;
    const out = new Uint8Array(len);
    this.copyNext(0, len, out, 0);
    this.consumeNext();
    return out;
  }

  /** Byte length of the next message, or −1 when the ring is empty. */
  nextLength(): number {
    const head = Atomics.load(this.ctl, HEAD);
    if (head === Atomics.load(this.ctl, TAIL)) return -1;
    return this.view.getUint32(head & (this.capacity - 1), true);
  }

  /**
   * Copies bytes `from`..`from + n` of the next message (there must be one: `nextLength` ≥ 0) into `out` at
   * `at`, without consuming it: a reader can look at a header, then copy the rest straight to where it goes.
   */
  copyNext(from: number, n: number, out: Uint8Array, at: number): void {
    const mask = this.capacity - 1;
    const start = ((Atomics.load(this.ctl, HEAD) & mask) + 4 + from) & mask;
    const first = Math.min(n, this.capacity - start);
    out.set(this.data.subarray(start, start + first), at);
    if (first < n) out.set(this.data.subarray(0, n - first), at + first);
  }

  /** Drops the next message (there must be one), freeing its space for the writer. */
  consumeNext(): void {
    const head = Atomics.load(this.ctl, HEAD);
    const len = this.view.getUint32(head & (this.capacity - 1), true);
    Atomics.store(this.ctl, HEAD, (head + 4 + align4(len)) | 0);
    if (Atomics.exchange(this.ctl, WRITER_SLEEPING, 0) === 1) Atomics.notify(this.ctl, HEAD);
  }

  /** Blocking write (not on an event-loop thread that must stay responsive); false on timeout or close. */
  write(msg: Uint8Array, timeoutMs = Infinity): boolean {
    const deadline = timeoutMs === Infinity ? Infinity : Date.now() + timeoutMs;
    while (!this.tryWrite(msg)) {
      if (this.closed) return false;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      Atomics.store(this.ctl, WRITER_SLEEPING, 1);
      const head = Atomics.load(this.ctl, HEAD);
      if (this.tryWrite(msg)) { Atomics.store(this.ctl, WRITER_SLEEPING, 0); return true; }
      Atomics.wait(this.ctl, HEAD, head, left === Infinity ? undefined : left);
    }
    return true;
  }

  /** Blocking read; null on timeout or when closed and drained. */
  read(timeoutMs = Infinity): Uint8Array | null {
    const deadline = timeoutMs === Infinity ? Infinity : Date.now() + timeoutMs;
    for (;;) {
      const m = this.tryRead();
      if (m) return m;
      if (this.closed) return null;
      const left = deadline - Date.now();
      if (left <= 0) return null;
      // Empty means tail === head; head is ours, so waiting for tail to differ from it cannot miss a write
      // (the flag is set before tail is read again: see the header).
      Atomics.store(this.ctl, READER_SLEEPING, 1);
      const head = Atomics.load(this.ctl, HEAD);
      if (Atomics.load(this.ctl, TAIL) !== head || this.closed) { Atomics.store(this.ctl, READER_SLEEPING, 0); continue; }
      Atomics.wait(this.ctl, TAIL, head, left === Infinity ? undefined : left);
    }
  }

  /** Write that waits for space without blocking the event loop (back-pressure for a producer thread). */
  async writeAsync(msg: Uint8Array): Promise<void> {
    while (!this.tryWrite(msg)) {
      if (this.closed) throw new Error('ring closed');
      Atomics.store(this.ctl, WRITER_SLEEPING, 1);
      const head = Atomics.load(this.ctl, HEAD);
      if (this.tryWrite(msg)) { Atomics.store(this.ctl, WRITER_SLEEPING, 0); return; }
      const w = waitAsync(this.ctl, HEAD, head);
      if (w.async) await w.value;
    }
  }

  /** Resolves when a message may be readable (or the ring closed); does not consume. */
  async waitReadable(): Promise<void> {
    const head = Atomics.load(this.ctl, HEAD);
    if (Atomics.load(this.ctl, TAIL) !== head || this.closed) return;
    Atomics.store(this.ctl, READER_SLEEPING, 1);
    const tail = Atomics.load(this.ctl, TAIL);
    if (head !== tail || this.closed) { Atomics.store(this.ctl, READER_SLEEPING, 0); return; }
    const w = waitAsync(this.ctl, TAIL, tail);
    if (w.async) await w.value;
  }
}

/**
 * Producer side for an event-loop thread: writes at once when it can, otherwise queues and writes the
 * queue in order as space frees up — so a message that had to wait is never overtaken by a later one.
 */
export class SpscProducer {
  private readonly backlog: { msg: Uint8Array; done(err?: Error): void }[] = [];
  constructor(readonly ring: SpscRing) {}

  /** Messages waiting for ring space. */
  get queued(): number { return this.backlog.length; }

  /**
   * Resolves once the message (`msg`, then `body` when given, as one) is in the ring. Both are copied before
   * this returns — into the ring, or into the queue when it must wait — so the caller may reuse them at once.
   */
  write(msg: Uint8Array, body?: Uint8Array): Promise<void> {
    if (this.backlog.length === 0 && this.ring.tryWrite(msg, body)) return Promise.resolve();
    const own = new Uint8Array(msg.byteLength + (body ? body.byteLength : 0));
    own.set(msg);
    if (body) own.set(body, msg.byteLength);
    return new Promise((resolve, reject) => {
      this.backlog.push({ msg: own, done: (err) => (err ? reject(err) : resolve()) });
      if (this.backlog.length === 1) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    while (this.backlog.length) {
      const head = this.backlog[0];
      try { await this.ring.writeAsync(head.msg); head.done(); } catch (err) { head.done(err as Error); }
      this.backlog.shift();
    }
  }
}
