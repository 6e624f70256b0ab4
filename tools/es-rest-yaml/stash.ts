/**
 * The YAML test DSL's stash: values saved by `set` and read back as `$name` (a whole value), `${name}` (inside
 * a string), a `$name` key (feature stash_in_key) or a `$name` path element (feature stash_in_path).
 */
export class Stash {
  private readonly values = new Map<string, unknown>();

  set(name: string, value: unknown): void { this.values.set(name, value); }

  clear(): void { this.values.clear(); }

  /** The stashed value for a `$name` / `${name}` reference; a reference to nothing is an error, as in ES. */
  get(name: string): unknown {
    if (!this.values.has(name)) throw new Error(`stash has no value for [${name}]`);
    return this.values.get(name);
  }

  /** Replaces every stash reference in a parsed YAML value (deeply; keys too). */
  resolve(v: unknown): unknown {
    if (typeof v === 'string') return this.resolveString(v);
    if (Array.isArray(v)) return v.map((x) => this.resolve(x));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[String(this.resolveString(k))] = this.resolve(x);
      return out;
    }
    return v;
  }

  private resolveString(s: string): unknown {
    if (/^\$\w+$/.test(s)) return this.get(s.slice(1));
    if (/^\$\{\w+\}$/.test(s)) return this.get(s.slice(2, -1));
    return s.replace(/\$\{(\w+)\}/g, (_, k: string) => String(this.get(k)));
  }
}
