/**
 * IK-like Chinese analysis over @node-rs/jieba (elasticsearch.md §6.3): `ik_smart` ≈ jieba `cut` without
 * HMM, `ik_max_word` ≈ the `cutForSearch` expansion (dictionary 2-/3-grams inside long words, longest
 * first at each start offset as IK prints them). Post-processing makes it look like IK: full-width → half-width
 * and lower case before segmentation, whitespace/punctuation dropped, digits joined across `.`/`,`,
 * IK's 33 English stop words removed, ik_smart merging a number with a following quantifier, positions
 * 0,1,2… (IK gives every token increment 1) and exact UTF-16 offsets. Token-for-token parity with IK's own
 * dictionaries is not possible (§6.3); this is "IK-like".
 */
import { createRequire } from 'node:module';
import type { Jieba } from '@node-rs/jieba';
import type { TokenBuf } from './token-buf.ts';
import { ENGLISH_STOP_WORDS } from './stop-words.ts';

let jieba: Jieba | null = null;
function getJieba(): Jieba {
  // Loading the dictionary takes ~0.5 s, and the package reads its 11 MB of dictionary files into Buffers
  // when it is imported: a static import held them in every thread that loads the analyzers (the main
  // thread and each shard worker), IK analyzer or not. So the package is required here, on first use.
  if (!jieba) {
    const require = createRequire(import.meta.url);
    const { Jieba: JiebaClass } = require('@node-rs/jieba') as typeof import('@node-rs/jieba');
    const { dict } = require('@node-rs/jieba/dict.js') as typeof import('@node-rs/jieba/dict.js');
    jieba = JiebaClass.withDict(dict);
  }
  return jieba;
}

/** Full-width ASCII → half-width, ideographic space → space, then lower case; UTF-16 length preserved. */
export function ikNormalize(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xff01 && c <= 0xff5e) c -= 0xfee0;
    else if (c === 0x3000) c = 0x20;
    out += String.fromCharCode(c);
  }
  // toLowerCase can change lengths for a few code points (İ); keep per-char mapping when it would.
  const lower = out.toLowerCase();
  return lower.length === out.length ? lower : out;
}

const RE_USEFUL = /[\p{L}\p{N}]/u;
const RE_CJK = /\p{Script=Han}/u;
const RE_DIGITS = /^[0-9]+$/;
const QUANTIFIERS = new Set('年月日时分秒个只条张本件次位名元块斤里米岁天周号层间台辆架首页点度倍克吨毫厘亩'.split(''));

interface Piece { term: string; start: number }

/** Main segmentation with offsets, digits re-joined across `.`/`,`. */
function mainPieces(norm: string): Piece[] {
  const words = getJieba().cut(norm, false);
  const out: Piece[] = [];
  let off = 0;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const start = norm.indexOf(w, off);
    const s = start < 0 ? off : start;
    off = s + w.length;
    const prev = out[out.length - 1];
    if (prev && RE_DIGITS.test(w) && prev.start + prev.term.length === s && /^[0-9]+[.,]$/.test(prev.term)) {
      prev.term += w; continue;
    }
    if (prev && (w === '.' || w === ',') && RE_DIGITS.test(prev.term) && prev.start + prev.term.length === s
      && i + 1 < words.length && RE_DIGITS.test(words[i + 1])) {
      prev.term += w; continue;
    }
    out.push({ term: w, start: s });
  }
  return out;
}

function typeOf(term: string): string {
  if (RE_CJK.test(term)) return term.length === 1 ? 'CN_CHAR' : 'CN_WORD';
  if (/^[0-9.,]+$/.test(term)) return 'ARABIC';
  if (/^[a-z]+$/.test(term)) return 'ENGLISH';
  return 'LETTER';
}

function keep(term: string): boolean {
  return RE_USEFUL.test(term) && !ENGLISH_STOP_WORDS.has(term);
}

/** ik_smart: coarsest non-overlapping segmentation. */
export function ikSmart(text: string, out: TokenBuf, posBase: number, offsetBase: number): number {
  const norm = ikNormalize(text);
  const pieces = mainPieces(norm);
  let pos = posBase;
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i];
    if (!keep(p.term)) continue;
    const next = pieces[i + 1];
    if (/^[0-9]+$/.test(p.term) && next && next.start === p.start + p.term.length && QUANTIFIERS.has(next.term)) {
      out.push(norm.slice(p.start, next.start + next.term.length), offsetBase + p.start, offsetBase + next.start + next.term.length, pos++, 'TYPE_CQUAN');
      i++;
      continue;
    }
    out.push(p.term, offsetBase + p.start, offsetBase + p.start + p.term.length, pos++, typeOf(p.term));
  }
  return pos;
}

/** ik_max_word: every main word plus its dictionary sub-words, ordered by start then longest first. */
export function ikMaxWord(text: string, out: TokenBuf, posBase: number, offsetBase: number): number {
  const norm = ikNormalize(text);
  const pieces = mainPieces(norm);
  const j = getJieba();
  const all: Piece[] = [];
  for (const p of pieces) {
    if (!keep(p.term)) continue;
    all.push(p);
    if (p.term.length > 2 && RE_CJK.test(p.term)) {
      // cutForSearch on the word alone yields its in-dictionary 2-/3-grams followed by the word.
      const subs = j.cutForSearch(p.term, false);
      const seen = new Set<string>([p.term]);
      for (const s of subs) {
        if (seen.has(s) || s.length < 2) continue;
        seen.add(s);
        const at = p.term.indexOf(s);
        if (at >= 0) all.push({ term: s, start: p.start + at });
      }
    }
  }
  all.sort((a, b) => a.start - b.start || b.term.length - a.term.length);
  let pos = posBase;
  for (const p of all) {
    out.push(p.term, offsetBase + p.start, offsetBase + p.start + p.term.length, pos++, typeOf(p.term));
  }
  return pos;
}
