import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorruptionError } from '../errors.ts';
import { StoredShard } from './shard-store.ts';
import type { WriteResult } from './doc-shard-types.ts';

const opts = { indexName: 'i', uuid: 'u', shard: 0, type: '_doc', mapping: { properties: { n: { type: 'long' } } }, searchIndex: null };
const src = (n: number): Uint8Array => Buffer.from(`{"n":${n}}`);

test('flush snapshots the shard, trims the translog, and reopen = snapshot + replay', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shard-store-'));
  try {
    let s = await StoredShard.open(dir, opts);
    for (let i = 0; i < 100; i++) await s.shard.index({ id: String(i), source: src(i) });
    await s.shard.delete({ id: '5' });
    await s.flush();
    assert.equal(s.shard.translogOps, 0);
    for (let i = 100; i < 150; i++) await s.shard.index({ id: String(i), source: src(i) });
    const r = (await s.shard.index({ id: '7', source: src(70) })) as WriteResult;
    assert.deepEqual([r.result, r.version, r.seqNo], ['updated', 2, 151]);
    await s.close();

    s = await StoredShard.open(dir, opts);
    assert.equal(s.shard.maxSeqNo, 151);
    assert.equal(s.shard.live, 149);
    assert.equal(Buffer.from(s.shard.getDoc('7')!.source).toString(), '{"n":70}');
    assert.equal(s.shard.getDoc('5'), null);
    assert.equal(s.shard.stats(0).docsCount, 149);
    const again = (await s.shard.index({ id: '5', source: src(5) })) as WriteResult;
    assert.deepEqual([again.result, again.version, again.seqNo], ['created', 3, 152], 'the tombstone keeps the version');
    await s.flush();
    await s.close();

    // A damaged snapshot is refused with the file and offset, never silently dropped.
    const file = join(dir, 'shard.snap');
    const bytes = readFileSync(file);
    bytes[bytes.length - 20] ^= 0xff;
    writeFileSync(file, bytes);
    await assert.rejects(StoredShard.open(dir, opts), (e) => e instanceof CorruptionError && e.file === file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
