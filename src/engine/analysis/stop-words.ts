/** Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET (`_english_`); IK's stopword.dic holds the same 33 words. */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  ('a an and are as at be but by for if in into is it no not of on or such that the their then there these they ' +
    'this to was will with').split(' '),
);
