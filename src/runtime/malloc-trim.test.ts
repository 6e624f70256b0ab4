import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { releaseFreeMemory } from './malloc-trim.ts';

const anonBytes = (): number => Number(/RssAnon:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
const isGlibc = process.platform === 'linux' && Boolean((process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime);

test('freed small backing stores leave the process once released', { skip: isGlibc ? false : 'needs glibc (malloc_trim)' }, async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // 600,000 100-byte arrays: each a malloc'd backing store, freed by the collector into the arenas.
  let keep: Uint8Array[] | null = [];
  for (let i = 0; i < 600_000; i++) keep.push(new Uint8Array(100));
  keep = null;
  gc();
  // V8 frees backing stores on a background thread; wait until it has.
  while (process.memoryUsage().arrayBuffers > 32 * 1024 * 1024) { await new Promise((r) => setImmediate(r)); gc(); }
  const before = anonBytes();
  assert.equal(releaseFreeMemory(), true);
  const released = before - anonBytes();
  assert.ok(released > 64 * 1024 * 1024, `released only ${Math.round(released / 1e6)} MB of ${Math.round(before / 1e6)} MB anonymous`);
});
