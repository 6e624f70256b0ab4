/**
 * The Porter (1980) stemming algorithm, as Lucene's PorterStemFilter applies it for the `english`
 * analyzer. Operates on lower-case ASCII words; other words are returned unchanged.
 */

function isCons(w: string, i: number): boolean {
  const c = w[i];
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false;
  if (c === 'y') return i === 0 ? true : !isCons(w, i - 1);
  return true;
}

/** m() of the stem w[0..j]: the number of VC sequences. */
function measure(w: string, j: number): number {
  let n = 0, i = 0;
  while (i <= j && isCons(w, i)) i++;
  for (;;) {
    while (i <= j && !isCons(w, i)) i++;
    if (i > j) return n;
    while (i <= j && isCons(w, i)) i++;
    n++;
    if (i > j) return n;
  }
}

function hasVowel(w: string, j: number): boolean {
  for (let i = 0; i <= j; i++) if (!isCons(w, i)) return true;
  return false;
}

function doubleCons(w: string, j: number): boolean {
  return j >= 1 && w[j] === w[j - 1] && isCons(w, j);
}

/** cvc at j where the last c is not w, x or y. */
function cvc(w: string, j: number): boolean {
  if (j < 2 || !isCons(w, j) || isCons(w, j - 1) || !isCons(w, j - 2)) return false;
  const c = w[j];
  return c !== 'w' && c !== 'x' && c !== 'y';
}

function replaceIf(w: string, suffix: string, rep: string, minM: number): string | null {
  if (!w.endsWith(suffix)) return null;
  const stemEnd = w.length - suffix.length - 1;
  return measure(w, stemEnd) > minM ? w.slice(0, stemEnd + 1) + rep : w;
}

const STEP2: [string, string][] = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'], ['bli', 'ble'],
  ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'], ['ation', 'ate'],
  ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'],
  ['iviti', 'ive'], ['biliti', 'ble'], ['logi', 'log'],
];
const STEP3: [string, string][] = [
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', ''],
];
const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism',
  'ate', 'iti', 'ous', 've', 'ize'];

function step1(w: string): string {
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  if (w.endsWith('eed')) {
    if (measure(w, w.length - 4) > 0) w = w.slice(0, -1);
  } else {
    let cut = '';
    if (w.endsWith('ed') && hasVowel(w, w.length - 3)) cut = w.slice(0, -2);
    else if (w.endsWith('ing') && hasVowel(w, w.length - 4)) cut = w.slice(0, -3);
    if (cut) {
      w = cut;
      if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
      else if (doubleCons(w, w.length - 1) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
      else if (measure(w, w.length - 1) === 1 && cvc(w, w.length - 1)) w += 'e';
    }
  }
  if (w.endsWith('y') && hasVowel(w, w.length - 2)) w = w.slice(0, -1) + 'i';
  return w;
}

function stepTable(w: string, table: [string, string][]): string {
  for (const [suf, rep] of table) {
    if (w.endsWith(suf)) return replaceIf(w, suf, rep, 0) ?? w;
  }
  return w;
}

function step4(w: string): string {
  for (const suf of STEP4) {
    if (!w.endsWith(suf)) continue;
    const j = w.length - suf.length - 1;
    if (suf === 'ion' && !(j >= 0 && (w[j] === 's' || w[j] === 't'))) return w;
    return measure(w, j) > 1 ? w.slice(0, j + 1) : w;
  }
  return w;
}

function step5(w: string): string {
  if (w.endsWith('e')) {
    const m = measure(w, w.length - 2);
    if (m > 1 || (m === 1 && !cvc(w, w.length - 2))) w = w.slice(0, -1);
  }
  if (w.endsWith('ll') && measure(w, w.length - 1) > 1) w = w.slice(0, -1);
  return w;
}

export function porterStem(word: string): string {
  if (word.length <= 2 || !/^[a-z]+$/.test(word)) return word;
  let w = step1(word);
  w = stepTable(w, STEP2);
  w = stepTable(w, STEP3);
  w = step4(w);
  return step5(w);
}
