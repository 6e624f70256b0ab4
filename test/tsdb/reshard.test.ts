/** Fewer workers after a restart: the orphaned shard's head is flushed to blocks and still served. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ShardPool } from '../../src/server/pool.ts';
import { TsdbClient } from '../../src/server/prom/tsdb-client.ts';
import { MATCH_REGEXP, newMatcher } from '../../src/engine/tsdb/api.ts';
import { tempDir } from './support/db.ts';

const ALL = [newMatcher(MATCH_REGEXP, '__name__', '.+')];

test('data of shard-2 stays visible when the server restarts with 2 workers', async () => {
  const { dir, cleanup } = tempDir('tsdb-reshard-');
  try {
    let pool = new ShardPool({ workers: 3, dataDir: dir, options: {} });
    let client = new TsdbClient(pool);
    await client.open({ retentionMs: 0, retentionBytes: 0 });
    const samples = [];
    for (let k = 0; k < 3; k++) for (let i = 0; i < 30; i++) samples.push({ labels: { __name__: 'm', i: String(i) }, t: k * 1000, v: i + k });
    assert.equal((await client.append(samples)).added, 90);
    await client.close();
    await pool.close();
    assert.ok(existsSync(path.join(dir, 'tsdb', 'shard-2')));

    pool = new ShardPool({ workers: 2, dataDir: dir, options: {} });
    client = new TsdbClient(pool);
    await client.open({ retentionMs: 0, retentionBytes: 0 });
    const got = await client.select(ALL, 0, 10_000);
    assert.equal(got.length, 30);
    for (const s of got) assert.deepEqual([...s.t], [0, 1000, 2000]);
    const blocks = readdirSync(path.join(dir, 'tsdb', 'shard-2')).filter((n) => /^[0-9A-Z]{26}$/.test(n));
    assert.equal(blocks.length, 1, 'the orphaned head became a block');
    // The next maintenance pass merges it into the TSDB directory, where both workers serve their series of it.
    await client.tick();
    assert.deepEqual(readdirSync(path.join(dir, 'tsdb', 'shard-2')).filter((n) => /^[0-9A-Z]{26}$/.test(n)), []);
    assert.equal(readdirSync(path.join(dir, 'tsdb')).filter((n) => /^[0-9A-Z]{26}$/.test(n)).length, 1);
    const after = await client.select(ALL, 0, 10_000);
    assert.deepEqual(after, got);
    await client.close();
    await pool.close();
  } finally { cleanup(); }
});
