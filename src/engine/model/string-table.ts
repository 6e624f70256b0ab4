/**
 * A bounded string intern table: equal strings decoded again and again (label names, repeated label values)
 * are replaced by one kept copy, some 20–40 bytes saved per occurrence. Bounded so that a stream of unique
 * strings cannot grow it without limit; it never shrinks, and past the bound new strings pass through.
 */
export class StringTable {
  private readonly strings = new Map<string, string>();

  constructor(private readonly max: number) {}

  intern(s: string): string {
    const had = this.strings.get(s);
    if (had !== undefined) return had;
    if (this.strings.size < this.max) this.strings.set(s, s);
    return s;
  }
}
