/**
 * Interns strings that repeat, leaving one-off strings alone: a string is kept the second time it is
 * offered. Label values of new series are a mix of values many series share (a handler, a status code)
 * and values unique to one series (an id); interning every value would fill a bounded table with ids and
 * then stop interning the shared ones. Strings seen once are remembered in a set that is cleared when it
 * reaches its bound, so a stream of unique strings costs bounded memory. The kept table never shrinks;
 * past its bound, new strings pass through.
 */
export class RepeatInterner {
  private readonly kept = new Map<string, string>();
  private seenOnce = new Set<string>();

  constructor(private readonly max: number) {}

  intern(s: string): string {
    const had = this.kept.get(s);
    if (had !== undefined) return had;
    if (this.seenOnce.has(s)) {
      this.seenOnce.delete(s);
      if (this.kept.size < this.max) this.kept.set(s, s);
      return s;
    }
    if (this.seenOnce.size >= this.max) this.seenOnce = new Set();
    this.seenOnce.add(s);
    return s;
  }

  /** Whether `s` is kept (it was offered at least twice while the table had room). */
  has(s: string): boolean { return this.kept.has(s); }

  /** Strings kept (for tests and figures). */
  get size(): number { return this.kept.size; }
}
