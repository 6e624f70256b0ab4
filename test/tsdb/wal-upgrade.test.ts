/**
 * Upgrade of a shard whose WAL is in Tessera's layout 1 (test/fixtures/format/tsdb-wal-v1, written by the old
 * code): every sample and the tombstone survive, the WAL is rewritten in Prometheus's format, and each crash
 * state the upgrade can leave behind opens to the same data.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MATCH_EQUAL, newMatcher } from '../../src/engine/tsdb/api.ts';
import { PromWal, Tsdb } from '../../src/engine/tsdb/index.ts';
import { tempDir } from './support/db.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/format/tsdb-wal-v1/shard-0', import.meta.url));
const M = 60_000;

const open = (dir: string): Promise<Tsdb> => Tsdb.open({ dir, openWal: (d) => PromWal.open({ dir: d }), now: () => 1_700_000_000_000 });

/** The fixture's data: m{i} every minute over [0, 270 min), value t/M + 1000·i; m{i="3"} deleted over [250, 260] min. */
function assertFixtureData(db: Tsdb): void {
  for (let i = 0; i < 4; i++) {
    const got = db.select([newMatcher(MATCH_EQUAL, 'i', String(i))], -Infinity, Infinity);
    assert.equal(got.length, 1, `series i=${i}`);
    const want: number[] = [];
    for (let t = 0; t < 270 * M; t += M) if (i !== 3 || t < 250 * M || t > 260 * M) want.push(t);
    assert.deepEqual([...got[0].t], want, `timestamps of i=${i}`);
    assert.deepEqual([...got[0].v], want.map((t) => t / M + i * 1000), `values of i=${i}`);
  }
}

function assertUpgradedLayout(dir: string): void {
  const names = readdirSync(dir);
  assert.ok(!names.includes('wal-v1'), 'the layout-1 WAL is gone');
  assert.ok(!names.some((n) => /^checkpoint\.\d{8}$/.test(n)), 'the layout-1 checkpoint file is gone');
  const wal = readdirSync(path.join(dir, 'wal'));
  assert.ok(wal.some((n) => /^checkpoint\.\d{8}$/.test(n)), `a Prometheus checkpoint directory in wal/: ${wal}`);
  for (const n of wal.filter((x) => /^\d{8}$/.test(x))) {
    const b = readFileSync(path.join(dir, 'wal', n));
    assert.notEqual(b.subarray(0, 4).toString('latin1'), 'TWAL', `${n} is not a layout-1 segment`);
  }
}

/** Crash states of the upgrade (legacy-wal.ts steps), each made from a copy of the fixture. */
const STATES: { name: string; make: (dir: string) => Promise<void> | void }[] = [
  { name: 'as layout 1 left it', make: () => {} },
  { name: 'crashed after renaming wal/ to wal-v1/', make: (dir) => renameSync(path.join(dir, 'wal'), path.join(dir, 'wal-v1')) },
  {
    name: 'crashed after the new checkpoint, before the layout-1 files were deleted',
    make: async (dir) => {
      await (await open(dir)).close();
      cpSync(path.join(FIXTURE, 'wal'), path.join(dir, 'wal-v1'), { recursive: true });
      cpSync(path.join(FIXTURE, 'checkpoint.00000001'), path.join(dir, 'checkpoint.00000001'));
    },
  },
];

for (const s of STATES) {
  test(`layout-1 WAL upgrade: ${s.name}`, async () => {
    const { dir: root, cleanup } = tempDir('wal-upgrade-');
    try {
      const dir = path.join(root, 'shard-0');
      cpSync(FIXTURE, dir, { recursive: true });
      await s.make(dir);
      const db = await open(dir);
      assertFixtureData(db);
      assertUpgradedLayout(dir);
      await db.close();
      const again = await open(dir);
      assertFixtureData(again);
      await again.close();
      assert.ok(existsSync(path.join(dir, 'wal')));
    } finally { cleanup(); }
  });
}
