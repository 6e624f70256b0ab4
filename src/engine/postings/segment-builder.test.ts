import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SegmentBuilder } from './segment-builder.ts';
import { AnalyzerRegistry } from '../analysis/analyzers.ts';
import { TokenBuf } from '../analysis/token-buf.ts';

// Mixed case, digits, mid-word punctuation, non-ASCII letters whose lowercase differs in length, Han, and a
// token longer than max_token_length (split into spans).
const TEXTS = [
  'The Quick brown FOX jumps over the lazy dog',
  'e.g. 3.14 U.S.A. can\'t O\'Neil fOx fox FOX',
  'İstanbul ÄRGER ärger straße ΣΊΣΥΦΟΣ 中文分词 ひらがな カタカナ',
  'x'.repeat(300) + ' ' + 'Y'.repeat(600),
  '',
  'the THE tHe end',
];

test('standard analyzer: terms looked up from spans build the same segment as lowercased token strings', () => {
  const registry = new AnalyzerRegistry({ analysis: { analyzer: { plain: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'trim'] } } } });
  const standard = registry.get('standard')!, plain = registry.get('plain')!;
  assert.equal(standard.lowercaseSpans, true);
  assert.equal(plain.lowercaseSpans, false, 'a second filter takes the string path');
  const viaSpans = new SegmentBuilder(), viaStrings = new SegmentBuilder();
  const tokens = new TokenBuf();
  for (const [i, text] of TEXTS.entries()) {
    for (const b of [viaSpans, viaStrings]) b.addDoc(`d${i}`, '');
    standard.analyzeLowerSpans(text, tokens.clear(), 0);
    viaSpans.addLowerSpans(i, 'f', text, tokens);
    plain.analyze(text, tokens.clear(), 0);
    viaStrings.addTokens(i, 'f', tokens);
  }
  const a = viaSpans.build('a', new Map()).field('f')!, b = viaStrings.build('b', new Map()).field('f')!;
  assert.deepEqual(a.terms, b.terms);
  assert.ok(a.terms.includes('fox') && !a.terms.includes('FOX') && a.terms.includes('i̇stanbul'));
  assert.deepEqual([a.docStart, a.docs, a.freqs, a.posStart, a.positions], [b.docStart, b.docs, b.freqs, b.posStart, b.positions]);
  assert.deepEqual(a.norms(), b.norms());
});
