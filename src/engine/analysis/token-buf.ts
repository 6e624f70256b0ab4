/**
 * A reusable token list (struct of arrays) filled by tokenizers and rewritten in place by token filters.
 * Offsets are UTF-16 code units into the analysed text; `pos` is the absolute position (0-based) and
 * already includes the gaps left by removed tokens. Not re-entrant: one buffer per caller.
 */
export class TokenBuf {
  terms: string[] = [];
  starts: number[] = [];
  ends: number[] = [];
  positions: number[] = [];
  types: string[] = [];
  length = 0;

  clear(): this { this.length = 0; return this; }

  /**
   * Set while an analyzer fills the buffer for `Analyzer.analyzeLowerSpans`: tokenizers that emit spans of the
   * text then record only offsets, and `terms` is not filled.
   */
  spansOnly = false;

  push(term: string, start: number, end: number, pos: number, type: string): void {
    const i = this.length++;
    this.terms[i] = term; this.starts[i] = start; this.ends[i] = end; this.positions[i] = pos; this.types[i] = type;
  }

  /** A token that is `text.slice(start, end)`; its string is made only when terms are wanted. */
  pushSpan(text: string, start: number, end: number, offsetBase: number, pos: number, type: string): void {
    if (!this.spansOnly) { this.push(text.slice(start, end), offsetBase + start, offsetBase + end, pos, type); return; }
    const i = this.length++;
    this.starts[i] = offsetBase + start; this.ends[i] = offsetBase + end; this.positions[i] = pos; this.types[i] = type;
  }

  /** Keeps token i at slot j (j <= i); used by filters that drop tokens. */
  move(i: number, j: number): void {
    if (i === j) return;
    this.terms[j] = this.terms[i]; this.starts[j] = this.starts[i]; this.ends[j] = this.ends[i];
    this.positions[j] = this.positions[i]; this.types[j] = this.types[i];
  }

  /** Copies the tokens out as objects (cold paths: _analyze, query building). */
  toTokens(): Token[] {
    const out: Token[] = [];
    for (let i = 0; i < this.length; i++) {
      out.push({ token: this.terms[i], start_offset: this.starts[i], end_offset: this.ends[i], type: this.types[i], position: this.positions[i] });
    }
    return out;
  }
}

export interface Token {
  token: string;
  start_offset: number;
  end_offset: number;
  type: string;
  position: number;
}
