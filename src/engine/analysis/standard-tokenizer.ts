/**
 * Word segmentation after Unicode UAX #29 as Lucene's StandardTokenizer applies it: letters and digits
 * join across the mid-word punctuation rules (WB6/7, WB11/12) and connectors (WB13a/b); each Han
 * ideograph and each Hiragana character is a token of its own; Katakana runs stay together; punctuation,
 * symbols and spaces never become tokens. Tokens longer than `maxTokenLength` UTF-16 units are split.
 * Not Intl.Segmenter: ICU's dictionary segmentation of Chinese is exactly what Lucene does not do.
 */
import type { TokenBuf } from './token-buf.ts';

const OTHER = 0, ALETTER = 1, NUMERIC = 2, KATAKANA = 3, HAN = 4, HIRAGANA = 5, MIDLETTER = 6, MIDNUM = 7,
  MIDNUMLET = 8, SQUOTE = 9, EXTENDNUMLET = 10, EXTEND = 11, HANGUL = 12;

const RE_HAN = /\p{Script=Han}/u;
const RE_HIRA = /\p{Script=Hiragana}/u;
const RE_KATA = /\p{Script=Katakana}|\u30FC/u;
const RE_HANGUL = /\p{Script=Hangul}/u;
const RE_LETTER = /[\p{L}\p{Nl}]/u;
const RE_DIGIT = /\p{Nd}/u;
const RE_EXTEND = /[\p{M}\p{Cf}\u200D]/u;
const MIDLETTER_SET = new Set([0x3a, 0xb7, 0x387, 0x5f4, 0x2027, 0xfe13, 0xfe55, 0xff1a]);
const MIDNUM_SET = new Set([0x2c, 0x3b, 0x37e, 0x589, 0x60c, 0x60d, 0x66c, 0x7f8, 0x2044, 0xfe10, 0xfe14, 0xfe50, 0xfe54, 0xff0c, 0xff1b]);
const MIDNUMLET_SET = new Set([0x2e, 0x2018, 0x2019, 0x2024, 0xfe52, 0xff07, 0xff0e]);
const EXTNUMLET_SET = new Set([0x5f, 0x203f, 0x2040, 0x2054, 0xfe33, 0xfe34, 0xfe4d, 0xfe4e, 0xfe4f, 0xff3f]);

const ASCII = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII[c] = classifySlow(c);

function classifySlow(cp: number): number {
  if (cp === 0x27) return SQUOTE;
  if (MIDLETTER_SET.has(cp)) return MIDLETTER;
  if (MIDNUM_SET.has(cp)) return MIDNUM;
  if (MIDNUMLET_SET.has(cp)) return MIDNUMLET;
  if (EXTNUMLET_SET.has(cp)) return EXTENDNUMLET;
  const ch = String.fromCodePoint(cp);
  if (RE_DIGIT.test(ch)) return NUMERIC;
  if (RE_HAN.test(ch) || (cp >= 0x3005 && cp <= 0x3007)) return HAN;
  if (RE_HIRA.test(ch)) return HIRAGANA;
  if (RE_KATA.test(ch)) return KATAKANA;
  if (RE_HANGUL.test(ch)) return HANGUL;
  if (RE_LETTER.test(ch)) return ALETTER;
  if (RE_EXTEND.test(ch)) return EXTEND;
  return OTHER;
}

const cache = new Map<number, number>();
function classify(cp: number): number {
  if (cp < 128) return ASCII[cp];
  let c = cache.get(cp);
  if (c === undefined) { c = classifySlow(cp); if (cache.size < 65536) cache.set(cp, c); }
  return c;
}

/** Letter-like classes that continue a word (WB5, WB8–10, WB13a/b); Hangul behaves as ALetter. */
function isWordChar(c: number): boolean { return c === ALETTER || c === NUMERIC || c === EXTENDNUMLET || c === HANGUL; }
function asLetter(c: number): number { return c === HANGUL ? ALETTER : c; }

/**
 * Appends the tokens of `text` to `out`, positions starting at `posBase`; returns the next position.
 * Types follow Lucene: <ALPHANUM>, <NUM>, <IDEOGRAPHIC>, <HIRAGANA>, <KATAKANA>, <HANGUL>.
 */
export function standardTokenize(text: string, out: TokenBuf, posBase: number, offsetBase: number, maxTokenLength = 255): number {
  let pos = posBase;
  const n = text.length;
  let i = 0;
  while (i < n) {
    // Fast path: ASCII spaces and punctuation that never start a word.
    const ch = text.charCodeAt(i);
    if (ch < 128 && ASCII[ch] === OTHER) { i++; continue; }
    const cp = text.codePointAt(i)!;
    const w = cp > 0xffff ? 2 : 1;
    const c = classify(cp);
    if (c === HAN || c === HIRAGANA) {
      let j = i + w;
      while (j < n && classify(text.codePointAt(j)!) === EXTEND) j++;
      out.pushSpan(text, i, j, offsetBase, pos++, c === HAN ? '<IDEOGRAPHIC>' : '<HIRAGANA>');
      i = j;
      continue;
    }
    if (c === KATAKANA || isWordChar(c)) {
      const end = scanWord(text, i, c);
      if (end.hasContent) pos = emitSplit(text, i, end.end, end.type, out, pos, offsetBase, maxTokenLength);
      i = end.end;
      continue;
    }
    i += w;
  }
  return pos;
}

const scanResult = { end: 0, type: '', hasContent: false };

// Invariant: `last` is the class of the last non-Extend char of the word so far.
function scanWord(text: string, start: number, first: number): typeof scanResult {
  const n = text.length;
  let last = asLetter(first);
  let hasLetter = first === ALETTER || first === KATAKANA || first === HANGUL;
  let hasDigit = first === NUMERIC;
  let allHangul = first === HANGUL;
  let i = start + (text.codePointAt(start)! > 0xffff ? 2 : 1);
  let end = i;
  while (i < n) {
    // Fast path: an ASCII letter or digit after a letter or digit always joins (WB5, WB8–10).
    const ch = text.charCodeAt(i);
    if (ch < 128 && (last === ALETTER || last === NUMERIC)) {
      const a = ASCII[ch];
      if (a === ALETTER || a === NUMERIC) {
        allHangul = false;
        if (a === ALETTER) hasLetter = true; else hasDigit = true;
        last = a; i++; end = i; continue;
      }
      // An ASCII space or symbol neither joins nor is mid-word punctuation: the word ends here.
      if (a === OTHER) break;
    }
    const cp = text.codePointAt(i)!;
    const w = cp > 0xffff ? 2 : 1;
    const raw = classify(cp);
    const c = asLetter(raw);
    if (c === EXTEND) { i += w; end = i; continue; }
    let joins = false;
    if (last === KATAKANA) joins = c === KATAKANA || c === EXTENDNUMLET;
    else if (c === KATAKANA) joins = last === EXTENDNUMLET;
    else if (isWordChar(last) && isWordChar(c)) joins = true;
    if (joins) {
      if (raw !== HANGUL) allHangul = false;
      if (c === ALETTER || c === KATAKANA) hasLetter = true;
      if (c === NUMERIC) hasDigit = true;
      last = c; i += w; end = i; continue;
    }
    const mid = (last === ALETTER && (c === MIDLETTER || c === MIDNUMLET || c === SQUOTE))
      || (last === NUMERIC && (c === MIDNUM || c === MIDNUMLET || c === SQUOTE));
    if (mid && i + w < n) {
      let k = i + w;
      while (k < n && classify(text.codePointAt(k)!) === EXTEND) k++;
      const nc = k < n ? asLetter(classify(text.codePointAt(k)!)) : OTHER;
      if (nc === last) {
        if (classify(text.codePointAt(k)!) !== HANGUL) allHangul = false;
        i = k + (text.codePointAt(k)! > 0xffff ? 2 : 1); end = i; continue;
      }
    }
    break;
  }
  scanResult.end = end;
  scanResult.hasContent = hasLetter || hasDigit;
  scanResult.type = first === KATAKANA ? '<KATAKANA>' : allHangul ? '<HANGUL>' : hasLetter ? '<ALPHANUM>' : '<NUM>';
  return scanResult;
}

function emitSplit(text: string, s: number, e: number, type: string, out: TokenBuf, pos: number, off: number, max: number): number {
  while (e - s > max) {
    out.pushSpan(text, s, s + max, off, pos++, type);
    s += max;
  }
  out.pushSpan(text, s, e, off, pos++, type);
  return pos;
}

/** Lucene's LetterTokenizer: maximal runs of letters. */
export function letterTokenize(text: string, out: TokenBuf, posBase: number, offsetBase: number): number {
  let pos = posBase;
  const re = /[\p{L}\p{M}]+/gu;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push(m[0], offsetBase + m.index, offsetBase + m.index + m[0].length, pos++, 'word');
  }
  return pos;
}

/** Lucene's WhitespaceTokenizer: maximal runs of non-whitespace. */
export function whitespaceTokenize(text: string, out: TokenBuf, posBase: number, offsetBase: number): number {
  let pos = posBase;
  const re = /[^\s]+/gu;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push(m[0], offsetBase + m.index, offsetBase + m.index + m[0].length, pos++, 'word');
  }
  return pos;
}

/** The whole text as one token. */
export function keywordTokenize(text: string, out: TokenBuf, posBase: number, offsetBase: number): number {
  out.push(text, offsetBase, offsetBase + text.length, posBase, 'word');
  return posBase + 1;
}
