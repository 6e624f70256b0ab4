/**
 * Pull parser for the Prometheus text exposition format 0.0.4 and OpenMetrics 1.0, shaped after
 * Prometheus's `textparse.Parser`: `next()` steps entry by entry over the body's bytes without building
 * strings or label objects for sample lines; the scrape loop keys its cache on the series bytes as written
 * (`seriesStart`…`seriesEnd`) and calls `labels()` only for series it has not seen before. Only metadata
 * lines, new series and errors are decoded to strings.
 *
 * Differences between the two formats that matter here:
 * - timestamps: text gives integer milliseconds, OpenMetrics float seconds (→ ms by truncation, as
 *   Prometheus's `int64(ts*1000)` does);
 * - OpenMetrics requires a final `# EOF`, forbids other comments and allows `# UNIT` and exemplars
 *   (parsed and dropped: Tessera stores no exemplars);
 * - OpenMetrics `_created` series are reported like any other series, as Prometheus 2.42 does (its
 *   created-timestamp handling is a later feature flag); `skipCreated` drops them when asked.
 *
 * Any malformed line throws ParseError naming the line, and the caller must discard the whole body.
 */
import { ParseError } from '../errors.ts';
import type { Label } from '../tsdb/api.ts';
import type { ByteKeyTable } from '../codec/byte-key-table.ts';
import { endOfQuoted, isNaNText, parseFloatBytes, parseGoFloat, parseIntBytes, unescapeHelp, unescapeLabel } from './exposition-tokens.ts';

export { parseGoFloat } from './exposition-tokens.ts';

export const ENTRY_EOF = 0, ENTRY_SERIES = 1, ENTRY_HELP = 2, ENTRY_TYPE = 3, ENTRY_UNIT = 4;
export type EntryKind = typeof ENTRY_EOF | typeof ENTRY_SERIES | typeof ENTRY_HELP | typeof ENTRY_TYPE | typeof ENTRY_UNIT;

const TEXT_TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const OM_TYPES = new Set(['counter', 'gauge', 'histogram', 'gaugehistogram', 'summary', 'info', 'stateset', 'unknown']);

const C_NL = 10, C_SP = 32, C_TAB = 9, C_HASH = 35, C_LBRACE = 123, C_RBRACE = 125, C_QUOTE = 34;
const C_EQ = 61, C_COMMA = 44, C_CR = 13;

export interface ParserOptions {
  /** Parse as OpenMetrics rather than text 0.0.4. */
  openMetrics: boolean;
  /** Drop OpenMetrics `_created` series of counters, histograms and summaries. */
  skipCreated?: boolean;
  /**
   * The body is one piece of a larger OpenMetrics stream cut at a line boundary: a missing `# EOF` is not
   * an error (the caller checks `eofSeen` at the end), and line numbers start after `firstLine`.
   */
  fragment?: boolean;
  firstLine?: number;
}

export class ExpositionParser {
  private readonly b: Buffer;
  private readonly n: number;
  private readonly om: boolean;
  private readonly skipCreated: boolean;
  private readonly fragment: boolean;
  private pos = 0;
  private lineNo = 0;
  private sawEof = false;
  private nameStart = 0;
  /** -1 after a sample matched by `expectSeries`: its name was not scanned (see `scanName`). */
  private nameEnd = 0;
  private lblStart = -1;
  private expectKeys: ByteKeyTable | null = null;
  private expectId = -1;
  private readonly types = new Map<string, string>();
  /** Byte range of the current series text as written (name and label block): the scrape cache's key. */
  seriesStart = 0;
  seriesEnd = 0;
  value = 0;
  /** Sample timestamp in ms since the epoch, or NaN when the line has none. */
  timestampMs = NaN;
  /** Metric family named by the current HELP/TYPE/UNIT line. */
  metricName = '';
  /** Unescaped text of the current HELP/TYPE/UNIT line. */
  text = '';
  /** Whether the current sample's series text is the one `expectSeries` named. */
  expectedHit = false;

  constructor(body: Uint8Array | string, opts: ParserOptions) {
    this.b = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    this.n = this.b.length;
    this.om = opts.openMetrics;
    this.skipCreated = opts.skipCreated ?? false;
    this.fragment = opts.fragment ?? false;
    this.lineNo = opts.firstLine ?? 0;
  }

  /** True once `# EOF` has been read. */
  get eofSeen(): boolean { return this.sawEof; }

  /** The body the offsets refer to. */
  get bytes(): Buffer { return this.b; }

  /** The current series text, one char per byte: a map key for callers that keep one per series (not display text). */
  get seriesKey(): string { return this.b.toString('latin1', this.seriesStart, this.seriesEnd); }

  /** The current series text decoded as UTF-8, for messages. */
  seriesText(): string { return this.str(this.seriesStart, this.seriesEnd); }

  /**
   * Names the series text the next sample line most likely starts with: key `id` of `keys`, a text a parser
   * in the same format accepted before. A line that starts with exactly those bytes followed by a blank has
   * that series text, since scanning the same bytes again would end at the same place, so its label block is
   * not scanned again (`expectedHit`): without that scan a steady-state scrape of 100k series costs the main
   * thread 0.6× the CPU (Prometheus's parser scans every line; its cache is keyed on what the scan returns).
   * A text accepted as text format may be rejected as OpenMetrics (`a{b="c",}`): callers must not name one
   * to an OpenMetrics parser. Applies to the next sample line only.
   */
  expectSeries(keys: ByteKeyTable, id: number): void {
    this.expectKeys = keys;
    this.expectId = id;
  }

  /** Advances to the next entry. Throws ParseError on a malformed line. */
  next(): EntryKind {
    const b = this.b, n = this.n;
    for (;;) {
      if (this.pos >= n) {
        if (this.om && !this.sawEof && !this.fragment) this.fail('data does not end with # EOF');
        return ENTRY_EOF;
      }
      this.lineNo++;
      let p = this.pos;
      if (this.sawEof) this.fail('unexpected data after # EOF');
      if (!this.om) while (p < n && (b[p] === C_SP || b[p] === C_TAB)) p++;
      const c = p < n ? b[p] : C_NL;
      if (c === C_NL || (c === C_CR && p + 1 < n && b[p + 1] === C_NL)) {
        if (this.om) this.fail('unexpected empty line');
        this.pos = this.skipLine(p);
        continue;
      }
      if (c === C_HASH) {
        const kind = this.comment(p);
        if (kind < 0) continue;
        return kind as EntryKind;
      }
      if (this.sample(p)) return ENTRY_SERIES;
    }
  }

  /** Line number (1-based) of the current entry, for error messages. */
  get line(): number { return this.lineNo; }

  /** The current series' labels, `__name__` included, sorted by name; empty values dropped. */
  labels(): Label[] {
    const b = this.b;
    if (this.nameEnd < 0) this.scanName();
    const out: Label[] = [{ name: '__name__', value: this.b.toString('latin1', this.nameStart, this.nameEnd) }];
    if (this.lblStart >= 0) {
      let p = this.lblStart + 1;
      for (;;) {
        p = skipWs(b, p);
        if (b[p] === C_RBRACE) break;
        const ns = p;
        while (isNameChar(b[p], false)) p++;
        const name = b.toString('latin1', ns, p);
        p = skipWs(b, p) + 1; // '='
        p = skipWs(b, p);
        const q = p + 1;
        p = endOfQuoted(b, q);
        const value = unescapeLabel(this.str(q, p));
        p = skipWs(b, p + 1);
        if (b[p] === C_COMMA) p++;
        if (value !== '') out.push({ name, value });
      }
    }
    out.sort(byName);
    for (let i = 1; i < out.length; i++) {
      if (out[i].name === out[i - 1].name) this.fail(`label name "${out[i].name}" is not unique`);
    }
    return out;
  }

  /** Parses a `#` line; returns the entry kind, or -1 for a comment to skip. */
  private comment(p: number): number {
    const b = this.b;
    const end = lineEnd(b, p);
    const line = this.str(p, end);
    this.pos = end + 1;
    if (this.om && line === '# EOF') { this.sawEof = true; this.pos = skipTrailingNewlines(b, end); return -1; }
    let kw = '';
    if (line.startsWith('# HELP ')) kw = 'HELP';
    else if (line.startsWith('# TYPE ')) kw = 'TYPE';
    else if (this.om && line.startsWith('# UNIT ')) kw = 'UNIT';
    if (kw === '') {
      if (this.om) this.fail(`invalid comment line ${quote(line)}`);
      return -1;
    }
    let q = p + 7;
    if (!this.om) while (b[q] === C_SP || b[q] === C_TAB) q++;
    const ns = q;
    while (q < end && isNameChar(b[q], true)) q++;
    if (q === ns || !isNameStart(b[ns], true)) this.fail(`invalid metric name in ${kw} line`);
    this.metricName = b.toString('latin1', ns, q);
    const sep = b[q];
    if (q < end && sep !== C_SP && sep !== C_TAB) this.fail(`invalid metric name in ${kw} line`);
    let ts = q < end ? q + 1 : end;
    if (!this.om && kw !== 'HELP') while (ts < end && (b[ts] === C_SP || b[ts] === C_TAB)) ts++;
    let te = end;
    if (te > ts && b[te - 1] === C_CR) te--;
    if (kw === 'HELP') { this.text = unescapeHelp(this.str(ts, te), this.om); return ENTRY_HELP; }
    this.text = this.str(ts, te);
    if (!this.om && kw === 'TYPE') this.text = this.text.trimEnd();
    if (kw === 'UNIT') {
      const m = this.metricName, u = this.text;
      if (u !== '' && (!m.endsWith(u) || m.length < u.length + 1 || m[m.length - u.length - 1] !== '_')) {
        this.fail(`unit not a suffix of metric ${quote(m)}`);
      }
      return ENTRY_UNIT;
    }
    if (!(this.om ? OM_TYPES : TEXT_TYPES).has(this.text)) this.fail(`invalid metric type ${quote(this.text)}`);
    this.types.set(this.metricName, this.text);
    return ENTRY_TYPE;
  }

  /** Scans one sample line starting at `p`; returns false when the sample is skipped. */
  private sample(p: number): boolean {
    const b = this.b, n = this.n;
    const ns = p;
    this.nameStart = p;
    const keys = this.expectKeys;
    const known = keys === null ? -1 : keys.prefixLength(this.expectId, b, p);
    this.expectKeys = null;
    this.expectedHit = known > 0 && (b[p + known] === C_SP || b[p + known] === C_TAB);
    if (this.expectedHit) {
      p += known;
      this.nameEnd = -1;
    } else {
      if (!isNameStart(b[p], true)) this.fail(`${quote(this.tokenAt(p))} is not a valid start token`);
      while (isNameChar(b[p], true)) p++;
      this.nameEnd = p;
      this.lblStart = -1;
      if (b[p] === C_LBRACE) {
        this.lblStart = p;
        p = this.scanLabels(p + 1);
      }
    }
    this.seriesStart = ns;
    this.seriesEnd = p;
    const c = b[p];
    if (c !== C_SP && c !== C_TAB) this.fail(`expected value after metric, got ${quote(this.tokenAt(p))}`);
    p = this.om ? p + 1 : skipWs(b, p);
    const vs = p;
    while (p < n && !isSpaceOrEol(b[p])) p++;
    this.value = parseFloatBytes(b, vs, p);
    if (Number.isNaN(this.value) && !isNaNText(b.toString('latin1', vs, p))) this.fail(`invalid value ${quote(this.str(vs, p))}`);
    this.pos = this.timestampAndRest(p);
    if (this.skipCreated && this.isCreatedSeries(ns)) return false;
    return true;
  }

  private timestampAndRest(p: number): number {
    const b = this.b;
    this.timestampMs = NaN;
    const end = lineEnd(b, p);
    let q = skipWs(b, p);
    if (q < end && b[q] !== C_HASH && !(b[q] === C_CR && q + 1 === end)) {
      const ts = q;
      while (q < end && !isSpaceOrEol(b[q])) q++;
      this.timestampMs = this.om ? omTimestamp(b.toString('latin1', ts, q), this) : textTimestamp(b, ts, q, this);
      q = skipWs(b, q);
    }
    if (q < end && b[q] === C_HASH && this.om) q = this.exemplar(q, end);
    if (q < end && !(b[q] === C_CR && q + 1 === end)) this.fail(`unexpected ${quote(this.tokenAt(q))} after sample`);
    return end + 1;
  }

  /** Validates and drops an OpenMetrics exemplar `# {labels} value [ts]`. */
  private exemplar(q: number, end: number): number {
    const b = this.b;
    if (b[q + 1] !== C_SP || b[q + 2] !== C_LBRACE) this.fail('invalid exemplar');
    q = this.scanLabels(q + 3);
    q = skipWs(b, q);
    const vs = q;
    while (q < end && !isSpaceOrEol(b[q])) q++;
    if (Number.isNaN(parseFloatBytes(b, vs, q)) && !isNaNText(b.toString('latin1', vs, q))) this.fail('invalid exemplar value');
    q = skipWs(b, q);
    if (q < end) {
      const ts = q;
      while (q < end && !isSpaceOrEol(b[q])) q++;
      omTimestamp(b.toString('latin1', ts, q), this);
      q = skipWs(b, q);
    }
    return q;
  }

  /** Scans a label block after `{`; returns the offset just past `}`. */
  private scanLabels(p: number): number {
    const b = this.b, n = this.n;
    for (;;) {
      p = skipWs(b, p);
      const c = b[p];
      if (c === C_RBRACE) return p + 1;
      const ns = p;
      if (!isNameStart(c, false)) this.fail(`expected label name, got ${quote(this.tokenAt(p))}`);
      while (isNameChar(b[p], false)) p++;
      p = skipWs(b, p);
      if (b[p] !== C_EQ) this.fail(`expected equal after label name ${quote(this.str(ns, p).trim())}, got ${quote(this.tokenAt(p))}`);
      p = skipWs(b, p + 1);
      if (b[p] !== C_QUOTE) this.fail(`expected label value, got ${quote(this.tokenAt(p))}`);
      p = endOfQuoted(b, p + 1);
      if (p >= n || b[p] !== C_QUOTE) this.fail('unterminated label value');
      p = skipWs(b, p + 1);
      const d = b[p];
      if (d === C_COMMA) {
        if (this.om && b[skipWs(b, p + 1)] === C_RBRACE) this.fail('unexpected "}" after ","');
        p++;
        continue;
      }
      if (d !== C_RBRACE) this.fail(`unexpected ${quote(this.tokenAt(p))} in label set`);
    }
  }

  /** The name's end and the label block's start of a sample matched by `expectSeries`. */
  private scanName(): void {
    const b = this.b;
    let p = this.nameStart;
    while (isNameChar(b[p], true)) p++;
    this.nameEnd = p;
    this.lblStart = b[p] === C_LBRACE ? p : -1;
  }

  private isCreatedSeries(ns: number): boolean {
    if (this.nameEnd < 0) this.scanName();
    const name = this.b.toString('latin1', ns, this.nameEnd);
    if (!name.endsWith('_created')) return false;
    const t = this.types.get(name.slice(0, -8));
    return t === 'counter' || t === 'histogram' || t === 'summary' || t === 'gaugehistogram';
  }

  skipLine(p: number): number {
    return lineEnd(this.b, p) + 1;
  }

  /** Throws the ParseError for the current line. */
  fail(msg: string): never {
    throw new ParseError('PARSE', `${msg} (line ${this.lineNo})`, { line: this.lineNo });
  }

  /** Bytes `[from, to)` as UTF-8 text. */
  private str(from: number, to: number): string {
    return this.b.toString('utf8', from, to);
  }

  /** The token at `p` for an error message. */
  private tokenAt(p: number): string {
    const b = this.b, n = this.n;
    if (p >= n) return 'EOF';
    let q = p;
    while (q < n && q < p + 40 && !isSpaceOrEol(b[q])) q++;
    return q === p ? (b[p] === C_NL ? '\\n' : this.str(p, p + 1)) : this.str(p, q);
  }
}

function byName(a: Label, b: Label): number { return a.name < b.name ? -1 : a.name > b.name ? 1 : 0; }

function lineEnd(b: Buffer, p: number): number {
  const i = b.indexOf(C_NL, p);
  return i < 0 ? b.length : i;
}

function skipTrailingNewlines(b: Uint8Array, p: number): number {
  while (p < b.length && (b[p] === C_NL || b[p] === C_CR)) p++;
  return p;
}

function skipWs(b: Uint8Array, p: number): number {
  let c = b[p];
  while (c === C_SP || c === C_TAB) c = b[++p];
  return p;
}

function isSpaceOrEol(c: number): boolean { return c === C_SP || c === C_TAB || c === C_NL || c === C_CR; }

/** `[a-zA-Z_]` (and `:` for metric names); false past the end (undefined). */
function isNameStart(c: number, metric: boolean): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || (metric && c === 58);
}
function isNameChar(c: number, metric: boolean): boolean {
  return isNameStart(c, metric) || (c >= 48 && c <= 57);
}

/** Text-format timestamps are integer milliseconds. */
function textTimestamp(b: Buffer, from: number, to: number, p: ExpositionParser): number {
  const fast = parseIntBytes(b, from, to);
  if (!Number.isNaN(fast)) return fast;
  const t = b.toString('latin1', from, to);
  if (!/^-?\d+$/.test(t)) p.fail(`invalid timestamp ${quote(b.toString('utf8', from, to))}`);
  const n = Number(t);
  if (!Number.isSafeInteger(n)) p.fail(`invalid timestamp ${quote(t)}`);
  return n;
}

/** OpenMetrics seconds → ms, truncated toward zero exactly like Go's `int64(ts*1000)`. */
function omTimestamp(t: string, p: ExpositionParser): number {
  const f = parseGoFloat(t);
  if (!Number.isFinite(f)) p.fail(`invalid timestamp ${quote(t)}`);
  return Math.trunc(f * 1000);
}

function quote(s: string): string { return JSON.stringify(s); }
