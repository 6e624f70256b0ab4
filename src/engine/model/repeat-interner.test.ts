import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RepeatInterner } from './repeat-interner.ts';

/** A fresh copy of `s` (not the same string object as a literal or an earlier copy). */
const fresh = (s: string): string => Buffer.from(s).toString();

test('a string is kept from its second occurrence; one-off strings are not kept', () => {
  const t = new RepeatInterner(100);
  assert.equal(t.intern(fresh('GET')), 'GET');
  assert.equal(t.size, 0); // seen once: passed through, not kept
  const second = t.intern(fresh('GET'));
  assert.equal(t.size, 1);
  // From then on the kept copy comes back (equal value; V8 gives no identity check for strings, so the
  // table's size tells us it is shared rather than growing).
  for (let i = 0; i < 10; i++) assert.equal(t.intern(fresh('GET')), second);
  assert.equal(t.size, 1);
  for (let i = 0; i < 50; i++) t.intern(fresh(`id-${i}`));
  assert.equal(t.size, 1, 'unique strings are not kept');
});

test('bounded: a stream of unique strings keeps at most `max`, and values keep their text', () => {
  const t = new RepeatInterner(64);
  const want: string[] = [];
  const got: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    const s = i % 3 === 0 ? `shared-${i % 30}` : `unique-${i}`;
    want.push(s);
    got.push(t.intern(fresh(s)));
  }
  assert.deepEqual(got, want);
  assert.ok(t.size <= 64);
  assert.ok(t.size >= 10, 'the repeated values were kept');
});

test('has: true once a string is kept, false for one seen once', () => {
  const t = new RepeatInterner(8);
  t.intern(fresh('a'));
  assert.equal(t.has('a'), false);
  t.intern(fresh('a'));
  assert.equal(t.has('a'), true);
  assert.equal(t.has('b'), false);
});
