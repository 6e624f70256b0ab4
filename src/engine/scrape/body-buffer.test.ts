/** A target's kept body buffer: chunks joined in order, the buffer reused, and given back after small bodies. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BodyBuffer } from './body-buffer.ts';

function read(b: BodyBuffer, expected: number, ...chunks: string[]): string {
  b.start(expected);
  for (const c of chunks) b.append(Buffer.from(c));
  return b.view().toString();
}

test('chunks are joined in order, with or without the length known up front', () => {
  const b = new BodyBuffer();
  assert.equal(read(b, 0, 'a 1\n', 'b 2\n', 'c 3\n'), 'a 1\nb 2\nc 3\n');
  assert.equal(read(b, 8, 'x 9\n', 'y 8\n'), 'x 9\ny 8\n');
  assert.equal(read(b, 0), '');
  // A chunk larger than the buffer grows it and keeps what came before.
  const big = 'z'.repeat(200_000);
  assert.equal(read(b, 0, 'head ', big, ' tail'), `head ${big} tail`);
});

test('the buffer is reused from body to body, and given back once bodies stay under a quarter of it', () => {
  const b = new BodyBuffer();
  const body = 'm 1\n'.repeat(100_000);
  read(b, body.length, body);
  const cap = b.capacity;
  assert.equal(cap, body.length);
  const first = b.view();
  read(b, body.length, body);
  assert.equal(b.view().buffer, first.buffer, 'the same memory');
  for (let i = 0; i < 8; i++) read(b, 0, 'small 1\n');
  assert.equal(b.capacity, cap, 'eight small bodies keep it');
  read(b, 0, 'small 1\n');
  assert.ok(b.capacity < cap / 4, `given back after the eighth small body (capacity ${b.capacity})`);
  assert.equal(b.view().toString(), 'small 1\n');
});
