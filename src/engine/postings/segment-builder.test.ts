import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SegmentBuilder } from './segment-builder.ts';
import { AnalyzerRegistry } from '../analysis/analyzers.ts';
import { TokenBuf } from '../analysis/token-buf.ts';
import { mulberry32 } from '../../../bench/support/mulberry32.ts';

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
  const a = viaSpans.build('a').field('f')!, b = viaStrings.build('b').field('f')!;
  assert.deepEqual(a.terms, b.terms);
  assert.ok(a.terms.includes('fox') && !a.terms.includes('FOX') && a.terms.includes('i̇stanbul'));
  assert.deepEqual([a.docStart, a.docs, a.freqs, a.posStart, a.positions], [b.docStart, b.docs, b.freqs, b.posStart, b.positions]);
  assert.deepEqual(a.norms(), b.norms());
});

test('a buffer over the previous buffer\'s recycled columns builds the same segment as a fresh one, and leaves the built segment intact', () => {
  const standard = new AnalyzerRegistry({}).get('standard')!;
  const tokens = new TokenBuf();
  // A larger first buffer (columns, term table and per-doc arrays grown past what the second needs), with a
  // nested child, a keyword field and a numeric column; the second buffer has fewer docs and other words.
  const fill = (b: SegmentBuilder, texts: string[], words: string): void => {
    for (const [i, text] of texts.entries()) {
      const d = b.addDoc(`d${i}`, '');
      b.setStored(d, new Uint8Array([i]), null, 1, i, 1);
      b.setLive(`d${i}`, d);
      standard.analyzeLowerSpans(text, tokens.clear(), 0);
      b.addLowerSpans(d, 'f', text, tokens);
      b.addTerm(d, 'k', `${words}${i % 3}`);
      b.addOrdinal(d, 'o', `${words}${i % 5}`);
      b.addNumeric(d, 'n', i * 2);
    }
  };
  const big = Array.from({ length: 700 }, (_, i) => `alpha${i} beta${i % 50} gamma ${TEXTS[i % TEXTS.length]}`);
  const small = ['Delta epsilon', 'the fox', '', 'epsilon zeta eta theta'];
  const first = new SegmentBuilder();
  fill(first, big, 'x');
  const child = first.addDoc('', 'nested');
  const root = first.addDoc('root', '');
  first.setParent(child, root);
  first.setStored(root, new Uint8Array([7, 7]), 'r1', 1, 700, 1);
  first.setLive('root', root);
  const built = first.build('a');
  const before = built.field('f')!;
  const snapshot = [before.terms.slice(), before.docStart.slice(), before.docs.slice(), before.freqs!.slice(), before.positions!.slice(), before.norms()!.slice()];
  const docsOfFirst = [0, 3, 699, root];
  const storedBefore = docsOfFirst.map((d) => structuredClone(built.stored(d)));

  const recycled = new SegmentBuilder(first), fresh = new SegmentBuilder();
  fill(recycled, small, 'y'); fill(fresh, small, 'y');
  const a = recycled.build('b'), b = fresh.build('c');
  for (const f of ['f', 'k']) {
    const x = a.field(f)!, y = b.field(f)!;
    assert.deepEqual(x.terms, y.terms, f);
    assert.deepEqual([x.docStart, x.docs, x.freqs, x.posStart, x.positions, x.norms()], [y.docStart, y.docs, y.freqs, y.posStart, y.positions, y.norms()], f);
  }
  assert.deepEqual(a.parentOf(), b.parentOf(), 'no parent carried over from the first buffer');
  assert.deepEqual(a.numeric('n'), b.numeric('n'));
  assert.deepEqual(a.ordinals('o'), b.ordinals('o'));
  assert.deepEqual([a.lookupId('d3'), a.lookupId('d4'), a.lookupId('root')], [3, -1, -1], 'ids of the second buffer only');
  assert.deepEqual([0, 1, 2, 3].map((d) => a.stored(d)), [0, 1, 2, 3].map((d) => b.stored(d)));
  assert.ok(!a.field('f')!.terms.includes('gamma'), 'no term of the first buffer');
  const after = built.field('f')!;
  assert.deepEqual([after.terms, after.docStart, after.docs, after.freqs, after.positions, after.norms()], snapshot, 'the first segment is unchanged');
  assert.deepEqual(docsOfFirst.map((d) => structuredClone(built.stored(d))), storedBefore, 'its ids and sources too');
  assert.deepEqual([built.lookupId('d3'), built.lookupId('d699'), built.lookupId('root'), built.pathOf(child)], [3, 699, root, 'nested']);
});

test('buffers that keep the previous buffer\'s term hash (or start an empty one) build the segments fresh buffers build', () => {
  // Five buffers in turn over one builder chain: the second and third share most words with the one before and
  // add new ones (the hash is kept, its ids grow), the fourth uses a few words only (so the fifth starts with an
  // empty hash), the fifth mixes old and new words. Each segment must hold exactly its own buffer's terms.
  const standard = new AnalyzerRegistry({}).get('standard')!;
  const tokens = new TokenBuf();
  const r = mulberry32(11);
  const vocab = Array.from({ length: 3_000 }, (_, i) => `w${i.toString(36)}${'q'.repeat(i % 9)}`);
  const text = (lo: number, hi: number, n: number): string => Array.from({ length: n }, () => vocab[lo + Math.floor(r() * (hi - lo))]).join(' ');
  const buffers = [
    Array.from({ length: 300 }, () => text(0, 1_500, 12)),
    Array.from({ length: 300 }, () => text(200, 2_000, 12)),
    Array.from({ length: 200 }, () => text(0, 2_500, 10)),
    Array.from({ length: 20 }, () => text(2_900, 2_940, 3)),
    Array.from({ length: 250 }, () => text(1_000, 3_000, 12).toUpperCase()),
  ];
  let chained = new SegmentBuilder();
  for (const [n, texts] of buffers.entries()) {
    const fresh = new SegmentBuilder();
    for (const b of [chained, fresh]) {
      for (const [i, t] of texts.entries()) {
        const d = b.addDoc(`d${i}`, '');
        standard.analyzeLowerSpans(t, tokens.clear(), 0);
        b.addLowerSpans(d, 'f', t, tokens);
        b.addTerm(d, 'k', t.slice(0, 4));
      }
    }
    const a = chained.build(`a${n}`), b = fresh.build(`b${n}`);
    for (const f of ['f', 'k']) {
      const x = a.field(f)!, y = b.field(f)!;
      assert.deepEqual(x.terms, y.terms, `buffer ${n}, field ${f}`);
      assert.deepEqual([x.docStart, x.docs, x.freqs, x.posStart, x.positions, x.norms(), x.docCount, x.sumTotalTermFreq], [y.docStart, y.docs, y.freqs, y.posStart, y.positions, y.norms(), y.docCount, y.sumTotalTermFreq], `buffer ${n}, field ${f}`);
    }
    chained = new SegmentBuilder(chained);
  }
});

test('freqs and positions per posting, stacked tokens included; a field without freqs keeps docs only', () => {
  const tokens = new TokenBuf();
  // A larger build first: its working table and sort arrays (kept for the next build on this thread) hold
  // counts and ids that this build must not see.
  const before = new SegmentBuilder();
  for (let d = 0; d < 300; d++) {
    before.addDoc(`p${d}`, '');
    tokens.clear();
    for (let i = 0; i < 5; i++) tokens.push(`w${(d * 7 + i) % 97}`, 0, 0, i, 'word');
    before.addTokens(d, 'f', tokens);
    before.addTerm(d, 'k', `v${d % 13}`);
  }
  assert.equal(before.build('p').field('f')!.terms.length, 97);
  const b = new SegmentBuilder();
  const add = (doc: number, toks: [string, number][]): void => {
    tokens.clear();
    for (const [t, p] of toks) tokens.push(t, 0, 0, p, 'word');
    b.addTokens(doc, 'f', tokens);
  };
  for (let d = 0; d < 4; d++) b.addDoc(`d${d}`, '');
  add(0, [['a', 0], ['b', 1], ['a', 2]]);
  add(1, [['b', 0]]);
  add(2, [['a', 0], ['a', 1], ['syn', 1], ['a', 2], ['b', 3]]);
  add(3, []);
  b.addTerm(0, 'k', 'x'); b.addTerm(2, 'k', 'x'); b.addTerm(2, 'k', 'y'); b.addTerm(3, 'k', 'x');
  const seg = b.build('s'), f = seg.field('f')!;
  assert.deepEqual(f.terms, ['a', 'b', 'syn']);
  assert.deepEqual([...f.docStart], [0, 2, 5, 6]);
  assert.deepEqual([...f.docs], [0, 2, 0, 1, 2, 2]);
  assert.deepEqual([...f.freqs!], [2, 3, 1, 1, 1, 1]);
  assert.deepEqual([...f.posStart!], [0, 2, 5, 6, 7, 8, 9]);
  assert.deepEqual([...f.positions!], [0, 2, 0, 1, 2, 1, 0, 3, 1]);
  const k = seg.field('k')!;
  assert.deepEqual(k.terms, ['x', 'y']);
  assert.deepEqual([...k.docs], [0, 2, 3, 2]);
  assert.equal(k.freqs, null);
  assert.equal(k.positions, null);
});
