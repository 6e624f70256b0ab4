/**
 * A flipped byte in each file kind of a committed segment is reported, never decoded into an answer: files
 * read at open (`.si`, `.tip`, `.liv`, the commit point) fail the open; files read on demand (`.tim`, `.doc`,
 * `.pos`, `.dvd`, `.fdt`, `.ids`) fail the read that touches the damaged region — found here by reading
 * everything (`verifySegment`) — with a `CorruptionError` naming the file and the offset of the region that
 * holds the flipped byte. The undamaged index reads without error, so each case fails for its byte alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorruptionError } from '../errors.ts';
import { ShardIndex } from '../indexing/shard-index.ts';
import { BlockCache } from './block-cache.ts';
import { ScratchIndex } from '../../../test/support/scratch-index.ts';

const mapping = { properties: { body: { type: 'text' }, tag: { type: 'keyword' }, n: { type: 'long' }, kids: { type: 'nested', properties: { c: { type: 'keyword' } } } } };

/** A committed index whose segment has regions in every file kind (terms past the inline limit, deletes, nested docs). */
async function build(): Promise<string> {
  const x = new ScratchIndex();
  for (let i = 0; i < 200; i++) {
    x.add(`doc-${i}`, { body: `common words number${i % 13} and more common text ${i}`, tag: `t${i % 5}`, n: i, kids: i % 10 === 0 ? [{ c: 'x' }] : [] }, mapping);
  }
  x.index.refresh();
  await x.flush();
  for (let i = 0; i < 200; i += 7) x.delete(`doc-${i}`);
  await x.flush();
  const dir = mkdtempSync(join(tmpdir(), 'corruption-master-'));
  cpSync(x.dir, dir, { recursive: true });
  await x.close();
  return dir;
}

function open(dir: string, verify: boolean): ShardIndex {
  return ShardIndex.open({ dir, indexSettings: {}, cache: new BlockCache(16 << 20), memory: null, autoMerge: false, verifyOnOpen: verify });
}

test('a flipped byte in each segment file kind is reported with its file and offset', async () => {
  const master = await build();
  try {
    // The undamaged copy opens and verifies cleanly.
    (await (async () => { const ix = open(master, true); await ix.close(); })());
    const files = readdirSync(master);
    const kinds = ['.si', '.tip', '.tim', '.doc', '.pos', '.dvd', '.fdt', '.ids', '.liv', 'segments_'];
    for (const kind of kinds) {
      const name = files.find((f) => (kind.endsWith('_') ? f.startsWith(kind) : f.endsWith(kind)));
      assert.ok(name, `the segment has a ${kind} file`);
      const dir = mkdtempSync(join(tmpdir(), 'corruption-'));
      try {
        cpSync(master, dir, { recursive: true });
        const path = join(dir, name);
        const bytes = readFileSync(path);
        // Past the 8-byte file header and the first region header, in the middle of the payloads.
        const at = 16 + Math.floor((statSync(path).size - 16) / 2);
        bytes[at] ^= 0x5a;
        writeFileSync(path, bytes);
        let err: unknown = null;
        try {
          const ix = open(dir, true);
          await ix.close();
        } catch (e) { err = e; }
        assert.ok(err instanceof CorruptionError, `${kind}: damage reported (got ${err})`);
        assert.equal(err.file, path, `${kind}: the damaged file is named`);
        assert.ok(err.offset <= at, `${kind}: the reported region (${err.offset}) starts at or before the flipped byte (${at})`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(master, { recursive: true, force: true });
  }
});

test('without the open-time check, damage surfaces on the first read of the damaged region', async () => {
  const master = await build();
  try {
    const name = readdirSync(master).find((f) => f.endsWith('.fdt'))!;
    const path = join(master, name);
    const bytes = readFileSync(path);
    const at = 16 + Math.floor((bytes.length - 16) / 2);
    bytes[at] ^= 0x5a;
    writeFileSync(path, bytes);
    const ix = open(master, false);
    try {
      let failed = 0, served = 0;
      for (let i = 0; i < 200; i++) {
        try {
          const d = ix.get(`doc-${i}`);
          if (d) { served++; assert.equal(JSON.parse(Buffer.from(d.source).toString()).n, i, 'a served document is the right one'); }
        } catch (e) {
          assert.ok(e instanceof CorruptionError && e.file === path);
          failed++;
        }
      }
      assert.ok(failed > 0 && served > 0, `the damaged block fails (${failed}), the others serve (${served})`);
    } finally {
      await ix.close();
    }
  } finally {
    rmSync(master, { recursive: true, force: true });
  }
});
