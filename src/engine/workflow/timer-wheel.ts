/**
 * The near future of the persisted timer table in memory (spec §13 "Durable timers").
 *
 * The source of truth is the `due` index on disk: one key `pad(fireAt) SEP timerId` per pending timer with a
 * fire time, in fire order. The wheel holds a min-heap of the earliest of those keys — every key up to
 * `loadedKey` — and reads the next `chunk` keys from the index when the heap runs dry. A timer scheduled
 * at or before `loadedKey` joins the heap; a later one stays on disk until its turn. If many timers are
 * scheduled into the loaded window the heap is dropped and reloaded, so memory stays bounded by about
 * two chunks whatever the number of pending timers.
 *
 * Heap entries are not removed when a timer is cancelled or rescheduled; a popped entry counts only if the
 * timer is still pending with that fire time (the caller checks the record).
 */
import { TimerHeap } from './timer-queue.ts';
import { SEP, pad, type IndexSpace } from './space.ts';

const END = '\uffff';

export const dueKey = (fireAt: number, id: string): string => pad(fireAt) + SEP + id;

export class TimerWheel {
  private heap = new TimerHeap();
  /** Every due key `<= loadedKey` is in the heap; '' = nothing loaded. */
  private loadedKey = '';

  constructor(private readonly due: IndexSpace, private readonly chunk = 4096) {}

  schedule(fireAt: number, id: string): void {
    const k = dueKey(fireAt, id);
    this.due.add(k);
    if (this.loadedKey !== '' && k <= this.loadedKey) {
      this.heap.push(fireAt, id);
      if (this.heap.size > 2 * this.chunk) this.reset();
    }
  }

  unschedule(fireAt: number, id: string): void { this.due.remove(dueKey(fireAt, id)); }

  /** Fire time of the earliest heap entry (possibly stale), Infinity when no timer is pending. */
  peekAt(): number {
    if (this.heap.size === 0) this.load();
    return this.heap.peekAt();
  }

  peekId(): string | undefined { return this.heap.peekId(); }
  pop(): void { this.heap.pop(); }
  get inMemory(): number { return this.heap.size; }

  /** Forgets the loaded window (it is read again from the index on the next peek). */
  reset(): void { this.heap = new TimerHeap(); this.loadedKey = ''; }

  private load(): void {
    // '\u0000' sorts right after `loadedKey` (keys never contain it).
    const keys = this.due.scan(this.loadedKey + '\u0000', END, this.chunk);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const cut = k.indexOf(SEP);
      this.heap.push(Number(k.slice(0, cut)), k.slice(cut + 1));
    }
    if (keys.length) this.loadedKey = keys[keys.length - 1];
  }
}
