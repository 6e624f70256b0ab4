/**
 * A document shard whose translog append fails (shard-registry.ts): the shard leaves the registry before the
 * append's rejection is heard, so the refused document is never readable, and the next call reopens the shard
 * from disk with every acknowledged document and takes writes again. The failure is injected into
 * FileHandle's `write` (ENOSPC, test/support/fail-next-write.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ShardRegistry, type ShardIndexMeta } from './shard-registry.ts';
import type { Pending } from './doc-shard.ts';
import type { EngineError } from '../errors.ts';
import { failNextWrite } from '../../../test/support/fail-next-write.ts';

const meta: ShardIndexMeta = { name: 'i', type: '_doc', mapping: { properties: { n: { type: 'long' } } }, mappingVersion: 1, settings: {} };
const src = (n: number): Uint8Array => Buffer.from(`{"n":${n}}`);

test('a failed translog append drops the shard before anyone hears; the reopened shard has exactly the acknowledged documents', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shard-registry-'));
  const warnings: string[] = [];
  const reg = new ShardRegistry({ dataDir, cacheBytes: 8 << 20, indexBufferBytes: 8 << 20, walRepair: false, onWarning: (m) => warnings.push(m), onInfo: () => undefined });
  try {
    const o = (await reg.shard('u', 0, 1, meta))!;
    await (o.stored.shard.indexNow({ id: 'a', source: src(1) }) as Pending).durable;
    await failNextWrite();
    const refused = (o.stored.shard.indexNow({ id: 'b', source: src(2) }) as Pending).durable;
    const seen: string[] = [];
    await assert.rejects(refused.catch((e: unknown) => { seen.push(reg.get('u', 0) === undefined ? 'dropped' : 'still open'); throw e; }),
      (e: EngineError) => e.code === 'DISK_FULL');
    assert.deepEqual(seen, ['dropped']);
    assert.equal(o.dropped, true);
    assert.match(warnings.join('\n'), /translog write failed .*reopening the shard from disk/);

    assert.equal(await reg.shard('u', 0, 1, undefined), null, 'not open: the caller resends with the metadata');
    const again = (await reg.shard('u', 0, 1, meta))!;
    assert.notEqual(again, o);
    assert.equal(again.stored.shard.getDoc('b'), null);
    assert.equal(Buffer.from(again.stored.shard.getDoc('a')!.source).toString(), '{"n":1}');
    const r = again.stored.shard.indexNow({ id: 'c', source: src(3) }) as Pending;
    await r.durable;
    assert.equal(r.result.seqNo, 1, 'the refused operation\'s seq_no is given again');
  } finally {
    await reg.closeAll();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
