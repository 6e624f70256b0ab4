/** The IK-like analyzers: jieba and its dictionary are loaded on first use, not when the analyzers are imported. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ikMaxWord, ikSmart } from './ik.ts';
import { TokenBuf } from './token-buf.ts';

test('importing the analyzers leaves jieba and its 11 MB dictionary unloaded until an IK analyzer runs', () => {
  const analyzers = fileURLToPath(new URL('./analyzers.ts', import.meta.url));
  const ik = fileURLToPath(new URL('./ik.ts', import.meta.url));
  // A fresh process: this one has loaded jieba through the tests below.
  const script = `
    import { createRequire } from 'node:module';
    const cache = createRequire(import.meta.url).cache;
    const jiebaLoaded = () => Object.keys(cache).some((k) => k.includes('@node-rs/jieba'));
    await import(${JSON.stringify(analyzers)});
    const before = jiebaLoaded();
    const { ikSmart } = await import(${JSON.stringify(ik)});
    const { TokenBuf } = await import(${JSON.stringify(fileURLToPath(new URL('./token-buf.ts', import.meta.url)))});
    ikSmart('中华人民共和国', new TokenBuf(), 0, 0);
    console.log(JSON.stringify({ before, after: jiebaLoaded() }));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out.trim().split('\n').pop()!), { before: false, after: true });
});

test('ik_smart and ik_max_word segment with the dictionary once loaded', () => {
  const smart = new TokenBuf();
  ikSmart('中华人民共和国国歌', smart, 0, 0);
  assert.deepEqual(smart.terms.slice(0, smart.length), ['中华人民共和国', '国歌']);
  const max = new TokenBuf();
  ikMaxWord('中华人民共和国', max, 0, 0);
  assert.ok(max.terms.slice(0, max.length).includes('人民'), max.terms.join(' '));
});
