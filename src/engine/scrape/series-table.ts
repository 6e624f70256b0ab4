/**
 * A producer's series (a scrape loop's, the remote-write receiver's) as flat columns instead of one object
 * per series: each label set is kept as bytes in one open-addressed byte table, and the series id indexes
 * typed columns. At 100,000 series a
 * label array, its label objects and strings, a state object and a route object per series were ~40 MB of
 * main-thread heap that every full collection marked again; here they are a few ArrayBuffers the collector
 * does not walk. Labels are decoded back to strings only when a series has to be sent with its labels (new,
 * or its ref went stale) and for sinks that take objects.
 *
 * Besides the label set, per series: when the producer last wrote it (`seen`, the producer's counter), and the
 * sink's ref for it (`ref`, with the worker that gave it and that worker's epoch; the TSDB client writes these,
 * and sends the series by ref instead of by labels while they are valid).
 *
 * The bytes of a label set, label by label (0xfd, 0xfe and 0xff never occur in UTF-8, so they mark codes):
 * - `0xfd k`: the table's common pair `k` (a scrape loop's target labels: job, instance, … in every series);
 * - otherwise the name, then the value, each either `0xfe hi lo`, symbol `hi·256+lo` of the table (label names,
 *   and `__name__` values: the few strings every series repeats), or its UTF-8 bytes and `0xff`.
 * A string gets a symbol the first time it is encoded while there is room (65,536 symbols), and keeps it, so a
 * label set is always encoded the same way and equal bytes mean equal sets. At 100,000 scraped series this
 * keeps about 40 bytes of a 95-byte set.
 *
 * Ids are dense, 0 … size-1, in insertion order; `compact` drops series and renumbers the rest, and bumps
 * `generation`, so that a sink whose append was in flight maps its ids to the current ones (`current`) before
 * it writes a ref or decodes labels.
 */
import type { Label, Labels } from '../tsdb/api.ts';
import { labelsHash } from '../tsdb/labels.ts';
import { ByteKeyTable } from '../codec/byte-key-table.ts';
import { grown } from '../codec/typed-grow.ts';

const SEP = 0xff, SYMBOL = 0xfe, PAIR = 0xfd;
const MAX_SYMBOLS = 1 << 16, MAX_PAIRS = 256;

export class SeriesTable {
  private keys = new ByteKeyTable();
  private refs = new Float64Array(1024);
  private owners = new Int32Array(1024);
  private epochs = new Int32Array(1024);
  /** Strings with a symbol (label names, metric names), by symbol and by string. */
  private readonly symbols: string[] = [];
  private readonly symbolOf = new Map<string, number>();
  /** The common pairs (at most 256), encoded as one code each. */
  private readonly pairs: readonly Label[];
  /** Scratch of `encode`. */
  private scratch = Buffer.allocUnsafe(256);
  private scratchLen = 0;
  /** Bumped by every `compact` (ids renumbered). */
  generation = 0;
  /** The last `compact`'s old id → new id, for ids handed out one generation ago (see `current`). */
  private lastRemap: Int32Array | null = null;

  /** `commonPairs`: label pairs most series of the table carry (a target's labels), kept as one byte code each. */
  constructor(commonPairs: readonly Label[] = []) {
    this.pairs = commonPairs.slice(0, MAX_PAIRS);
  }

  get size(): number { return this.keys.size; }

  /** The id of the label set `ls`, or -1. Like every method here, sorts it by name and ignores empty values. */
  find(ls: Labels): number {
    ls = normalised(ls);
    this.encode(ls);
    return this.keys.find(this.scratch, 0, this.scratchLen, labelsHash(ls));
  }

  /** The id of `ls`, added (never seen, no ref) when new. */
  intern(ls: Labels): number {
    ls = normalised(ls);
    const hash = labelsHash(ls);
    this.encode(ls);
    const b = this.scratch, n = this.scratchLen;
    const id = this.keys.find(b, 0, n, hash);
    if (id >= 0) return id;
    const added = this.keys.insert(b, 0, n, hash);
    if (added === this.refs.length) this.grow();
    this.refs[added] = 0;
    this.owners[added] = -1;
    this.epochs[added] = 0;
    return added;
  }

  /** `labelsHash` of the series' label set (what `shardOfSeries` routes by). */
  hash(id: number): number { return this.keys.hash(id); }

  /** The producer's counter value when it last wrote series `id` (0: never). */
  seen(id: number): number { return this.keys.user(id); }

  setSeen(id: number, v: number): void { this.keys.setUser(id, v); }

  /** The sink's ref for `id` if worker `owner` gave it in `epoch`, else 0. */
  refFor(id: number, owner: number, epoch: number): number {
    return this.owners[id] === owner && this.epochs[id] === epoch ? this.refs[id] : 0;
  }

  setRef(id: number, ref: number, owner: number, epoch: number): void {
    this.refs[id] = ref;
    this.owners[id] = owner;
    this.epochs[id] = epoch;
  }

  clearRef(id: number): void { this.owners[id] = -1; }

  /** The label set of `id` as fresh label objects, sorted. */
  labels(id: number): Label[] {
    const out: Label[] = [];
    this.decode(id, (name, value) => { out.push({ name, value }); });
    return out;
  }

  /** The label set of `id` as `[name, value, …]`. */
  flat(id: number): string[] {
    const out: string[] = [];
    this.decode(id, (name, value) => { out.push(name, value); });
    return out;
  }

  /** Keeps the series for which `keep(id)` is true, renumbered in their old order; the new id of each old id (-1: dropped). */
  compact(keep: (id: number) => boolean): Int32Array {
    const n = this.keys.size;
    const remap = this.keys.compact(keep);
    for (let id = 0; id < n; id++) {
      const to = remap[id];
      if (to < 0 || to === id) continue;
      this.refs[to] = this.refs[id];
      this.owners[to] = this.owners[id];
      this.epochs[to] = this.epochs[id];
    }
    this.generation++;
    this.lastRemap = remap;
    return remap;
  }

  /**
   * The id now of the series that had id `sid` in `generation`: -1 when it was dropped, or when the table
   * was compacted more than once since (a sink holds ids only for the length of one append, and producers
   * compact at most once in that time).
   */
  current(sid: number, generation: number): number {
    if (generation === this.generation) return sid;
    if (generation === this.generation - 1 && this.lastRemap !== null && sid < this.lastRemap.length) return this.lastRemap[sid];
    return -1;
  }

  private decode(id: number, each: (name: string, value: string) => void): void {
    const b = this.keys.bytes(id), buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    let p = 0;
    const token = (): string => {
      if (buf[p] === SYMBOL) { p += 3; return this.symbols[(buf[p - 2] << 8) | buf[p - 1]]; }
      const end = buf.indexOf(SEP, p);
      if (end < 0) throw new Error(`series table: malformed label set ${id}`);
      const s = buf.toString('utf8', p, end);
      p = end + 1;
      return s;
    };
    while (p < buf.length) {
      if (buf[p] === PAIR) { const l = this.pairs[buf[p + 1]]; p += 2; each(l.name, l.value); continue; }
      const name = token();
      each(name, token());
    }
  }

  private encode(ls: Labels): void {
    let need = 0;
    for (let i = 0; i < ls.length; i++) need += 3 * (ls[i].name.length + ls[i].value.length) + 6;
    if (need > this.scratch.length) this.scratch = Buffer.allocUnsafe(Math.max(need, this.scratch.length * 2));
    let p = 0;
    for (let i = 0; i < ls.length; i++) {
      const l = ls[i];
      const k = this.pairIndex(l);
      if (k >= 0) { this.scratch[p] = PAIR; this.scratch[p + 1] = k; p += 2; continue; }
      p = this.writeString(l.name, p, true);
      p = this.writeString(l.value, p, l.name === '__name__');
    }
    this.scratchLen = p;
  }

  private pairIndex(l: Label): number {
    const pairs = this.pairs;
    for (let k = 0; k < pairs.length; k++) if (pairs[k].name === l.name && pairs[k].value === l.value) return k;
    return -1;
  }

  /** Writes `s` at `p` as a symbol (when `symbol` and it has or can get one) or as UTF-8 and a separator. */
  private writeString(s: string, p: number, symbol: boolean): number {
    const b = this.scratch;
    if (symbol) {
      let sym = this.symbolOf.get(s);
      if (sym === undefined && this.symbols.length < MAX_SYMBOLS) {
        sym = this.symbols.length;
        this.symbols.push(s);
        this.symbolOf.set(s, sym);
      }
      if (sym !== undefined) { b[p] = SYMBOL; b[p + 1] = sym >> 8; b[p + 2] = sym & 0xff; return p + 3; }
    }
    p += b.write(s, p, 'utf8');
    b[p] = SEP;
    return p + 1;
  }

  private grow(): void {
    this.refs = grown(this.refs);
    this.owners = grown(this.owners);
    this.epochs = grown(this.epochs);
  }
}

/** `ls` sorted by name without empty values, as the TSDB stores a label set: itself when it already is. */
function normalised(ls: Labels): Labels {
  for (let i = 0; i < ls.length; i++) {
    if (ls[i].value === '' || (i > 0 && !(ls[i - 1].name < ls[i].name))) {
      return ls.filter((l) => l.value !== '').sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }
  }
  return ls;
}
