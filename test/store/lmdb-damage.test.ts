/**
 * Damaged or missing LMDB files are reported, never a native crash or a silently empty node: each damage case
 * of the meta pages makes `Store.open` throw a CorruptionError naming data.mdb (LMDB itself would follow the
 * damaged page and kill the process); a deleted data.mdb beside existing index directories refuses start-up.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/engine/store/lmdb.ts';
import { CorruptionError } from '../../src/engine/errors.ts';
import { readThroughWithin, startReadThrough } from '../../src/engine/store/lmdb-consistency.ts';
import { startServer } from '../support/server.ts';
import { esCall } from '../support/es-call.ts';

const DAMAGE: [what: string, offset: RegExp, damage: (file: string) => void][] = [
  ['page 0 magic', /at offset 24\b/, (f) => poke(f, 0x18, 0x00)],
  ['page 1 magic', /at offset 4120\b/, (f) => poke(f, 0x1000 + 0x18, 0x42)],
  ['page 0 not a meta page', /at offset 18\b/, (f) => poke(f, 0x12, 0x00)],
  ['page 0 data version', /at offset 28\b/, (f) => poke(f, 0x1c, 0x07)],
  ['page size', /at offset 48\b/, (f) => poke(f, 0x31, 0x03)],
  ['file cut inside page 1', /cut short|shorter than its two meta pages/, (f) => truncateSync(f, 0x1000 + 8)],
  ['file cut inside page 0', /cut short/, (f) => truncateSync(f, 20)],
];

function poke(file: string, at: number, byte: number): void {
  const b = readFileSync(file);
  b[at] = byte;
  writeFileSync(file, b);
}

test('damaged LMDB meta pages raise a CorruptionError naming the file and offset', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-lmdb-damage-'));
  try {
    const good = join(dir, 'good');
    const s = Store.open(good);
    await s.db<string>('x').put('k', 'v');
    await s.close();
    const pristine = readFileSync(join(good, 'data.mdb'));
    for (const [what, offset, damage] of DAMAGE) {
      const env = join(dir, what.replaceAll(' ', '-'));
      const file = join(env, 'data.mdb');
      Store.open(env).close();
      writeFileSync(file, pristine);
      damage(file);
      assert.throws(() => Store.open(env), (e: unknown) => e instanceof CorruptionError && e.message.includes(file) && offset.test(e.message), what);
    }
    // The undamaged copy still opens and reads.
    const again = Store.open(good);
    assert.equal(again.db<string>('x').get('k'), 'v');
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a deleted metadata store beside index data refuses start-up instead of starting empty', async () => {
  let s = await startServer({ services: ['documents'], workers: 1 });
  try {
    assert.equal((await esCall(s, 'PUT', '/kept/_doc/1?refresh=true', { n: 1 })).status, 201);
    await s.stop();
    const dataFile = join(s.dataDir, 'lmdb', 'data.mdb');
    rmSync(dataFile);
    for (let attempt = 0; attempt < 2; attempt++) {
      await assert.rejects(s.restart(), /documents metadata store is missing while .*es\/indices holds 1 index directory/);
      // Nothing was created that would let the next start go on with empty metadata.
      assert.equal(existsSync(dataFile), false);
    }
    rmSync(join(s.dataDir, 'es', 'indices'), { recursive: true });
    s = await s.restart();
    assert.equal((await esCall(s, 'GET', '/_cat/indices?format=json')).body.length, 0);
  } finally {
    await s.destroy();
  }
});

/** An environment of `n` entries of 100 bytes (about 180 pages at n = 3,000), closed cleanly. */
async function filledEnv(dir: string, n: number): Promise<string> {
  const s = Store.open(dir);
  const db = s.db<Uint8Array>('x');
  await s.transaction(() => { for (let i = 0; i < n; i++) db.putSync(`key-${i}`, new Uint8Array(100).fill(i & 255)); });
  await s.close();
  return join(dir, 'data.mdb');
}

/** Garbles the page type of every page after the two meta pages (LMDB aborts on an assertion reading them). */
function damagePageHeaders(file: string): void {
  const b = readFileSync(file);
  for (let at = 2 * 4096; at + 4096 <= b.length; at += 4096) b.writeUInt16LE(0x7777, at + 0x12);
  writeFileSync(file, b);
}

test('a clean close leaves the marker, an open takes it away: after a crash it is absent', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-lmdb-clean-'));
  try {
    const marker = join(dir, 'closed-cleanly');
    await filledEnv(dir, 10);
    assert.equal(existsSync(marker), true, 'written by the clean close');
    const s = Store.open(dir);
    assert.equal(existsSync(marker), false, 'removed while the environment is open');
    assert.equal(s.db<Uint8Array>('x').get('key-3')?.[0], 3);
    await s.close();
    assert.equal(existsSync(marker), true);
    // A secondary open (another Store of the process owns the environment) leaves the marker alone.
    const owner = Store.open(dir);
    const second = Store.open(dir, { secondary: true });
    await second.close();
    assert.equal(existsSync(marker), false, 'the owner still has it open');
    await owner.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('after an unclean close LMDB\'s consistency read reports damaged pages as a CorruptionError, not a crash', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-lmdb-unclean-'));
  try {
    const file = await filledEnv(dir, 3000);
    const pristine = readFileSync(file);
    // The foreground read is what this test is about: a budget no loaded machine exceeds (with the default
    // 1 s, a CI run on a busy machine left the read to the background, and the close no clean mark).
    const foreground = { foregroundReadMs: 120_000 };
    // Unclean and intact: read through, then open as usual with every entry there.
    rmSync(join(dir, 'closed-cleanly'));
    const s = Store.open(dir, foreground);
    assert.equal(s.db<Uint8Array>('x').get('key-2999')?.[0], 2999 & 255);
    await s.close();
    // Unclean and damaged past the meta pages: refused, naming the file and what to do.
    rmSync(join(dir, 'closed-cleanly'));
    damagePageHeaders(file);
    assert.throws(() => Store.open(dir, foreground), (e: unknown) => e instanceof CorruptionError && e.file === file &&
      /consistency read after an unclean shutdown failed .*restore this directory from a backup/.test(e.message));
    assert.equal(existsSync(join(dir, 'closed-cleanly')), false, 'still unclean: the next start checks again');
    writeFileSync(file, pristine);
    (await Store.open(dir).close());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Garbles the page type of every page that holds `marker` (leaf and branch pages of one database's keys). */
function damagePagesHolding(file: string, marker: string): number {
  const b = readFileSync(file);
  let n = 0;
  for (let at = 2 * 4096; at + 4096 <= b.length; at += 4096) {
    if (b.subarray(at, at + 4096).includes(marker)) { b.writeUInt16LE(0x7777, at + 0x12); n++; }
  }
  writeFileSync(file, b);
  return n;
}

// The damage is in a database the node does not read at start-up, so the node itself does not trip on it: only
// the consistency read can find it — before serving when it fits its foreground budget (start-up refused), in
// the background otherwise (the structured log names the file). Either way it is reported, never silent.
test('a node killed with -9 reports damage its metadata store holds, naming data.mdb and what to do', { timeout: 120_000 }, async () => {
  let s = await startServer({ services: ['documents'], workers: 1 });
  try {
    assert.equal((await esCall(s, 'PUT', '/kept/_doc/1?refresh=true', { n: 1 })).status, 201);
    await s.kill9();
    const env = join(s.dataDir, 'lmdb');
    assert.equal(existsSync(join(env, 'closed-cleanly')), false, 'kill -9 leaves no clean-close marker');
    await damageColdDatabase(env);
    const report = /corruption in .*lmdb\/data\.mdb at offset 0: LMDB's consistency read after an unclean shutdown failed .*restore this directory from a backup/;
    try {
      s = await s.restart();
    } catch (e) {
      assert.match((e as Error).message, report, 'refused before serving');
      return;
    }
    const giveUp = AbortSignal.timeout(60_000);
    while (!report.test(s.stderr()) && !giveUp.aborted) await new Promise((r) => setImmediate(r));
    assert.match(s.stderr(), report, 'reported by the background read');
    // Reported, and never served from: every shard is failed (the next test pins the whole reply).
    while ((await esCall(s, 'GET', '/_cluster/health')).body.status !== 'red' && !giveUp.aborted) await new Promise((r) => setImmediate(r));
    assert.equal((await esCall(s, 'GET', '/kept/_doc/1')).status, 503);
  } finally {
    await s.destroy();
  }
});

test('a consistency read past its foreground budget is left unfinished, and the background read reports damage', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-lmdb-background-'));
  try {
    const file = await filledEnv(dir, 3000);
    const url = import.meta.resolve('lmdb');
    assert.equal(readThroughWithin(dir, url, 60_000), true, 'an intact environment is read through');
    assert.equal(readThroughWithin(dir, url, 1), false, 'stopped at a 1 ms budget');
    const intact = startReadThrough(dir, url, () => assert.fail('no damage in an intact environment'));
    await intact.ended;
    assert.equal(intact.finished, true);
    damagePageHeaders(file);
    let reported: CorruptionError | null = null;
    const bad = startReadThrough(dir, url, (e) => { reported = e; });
    await bad.ended;
    assert.equal(bad.finished, false);
    assert.ok(reported !== null && (reported as CorruptionError).file === file && /restore this directory from a backup/.test((reported as CorruptionError).message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('damage the background read finds fails the Store: reads and writes throw it, listeners hear it, no clean mark', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-lmdb-bg-fail-'));
  try {
    const file = await filledEnv(dir, 10);
    rmSync(join(dir, 'closed-cleanly'));
    // Damage only the pages of a database this test does not read, so that the open itself gets through. This
    // open reads the environment through first (no clean mark); a budget no machine exceeds, or on a loaded
    // machine the read is left to the background and the close writes no mark for the next line to remove.
    const s0 = Store.open(dir, { foregroundReadMs: 120_000 });
    const cold = s0.db<string>('cold');
    await s0.transaction(() => { for (let i = 0; i < 3000; i++) cold.putSync(`coldkey-${i}`, 'x'.repeat(100)); });
    await s0.close();
    rmSync(join(dir, 'closed-cleanly'));
    assert.ok(damagePagesHolding(file, 'coldkey-') > 10);
    const s = Store.open(dir, { foregroundReadMs: 0 });
    const heard = new Promise<CorruptionError>((resolve) => s.onDamage(resolve));
    const db = s.db<Uint8Array>('x');
    assert.equal(db.get('key-7')?.[0], 7, 'served until the background read has finished');
    const err = await heard;
    assert.ok(err instanceof CorruptionError && err.file === file && /restore this directory from a backup/.test(err.message));
    const isIt = (e: unknown) => e === err;
    assert.throws(() => db.get('key-7'), isIt);
    assert.throws(() => [...db.getRange()], isIt);
    assert.throws(() => db.getStored('key-7'), isIt);
    await assert.rejects(db.put('key-7', new Uint8Array(1)), isIt);
    await assert.rejects(s.transaction(() => db.putSync('key-8', new Uint8Array(1))), isIt);
    let late: CorruptionError | null = null;
    s.onDamage((e) => { late = e; });
    assert.equal(late, err, 'a listener added after the finding hears it at once');
    await s.close();
    assert.equal(existsSync(join(dir, 'closed-cleanly')), false, 'a damaged environment is never marked closed cleanly');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Adds a database of 3,000 entries that nothing reads at start-up to the environment `env`, and damages its pages. */
async function damageColdDatabase(env: string): Promise<void> {
  const store = Store.open(env);
  const cold = store.db<string>('cold');
  await store.transaction(() => { for (let i = 0; i < 3000; i++) cold.putSync(`coldkey-${i}`, 'x'.repeat(100)); });
  await store.close();
  rmSync(join(env, 'closed-cleanly'));
  assert.ok(damagePagesHolding(join(env, 'data.mdb'), 'coldkey-') > 10);
  assert.throws(() => readThroughWithin(env, import.meta.resolve('lmdb'), 60_000), CorruptionError, 'the damage is one the consistency read finds');
}

// With the consistency read left to the background (the test hook: as for a partition too large to read
// within the start-up budget), the partition serves until the read finds the damage; then it is failed.
test('damage the background read finds in a workflow partition fails the workflow API with 503 naming data.mdb', { timeout: 120_000 }, async () => {
  const args = ['--workflow.partitions', '1'];
  let s = await startServer({ services: ['workflow'], workers: 1, args });
  try {
    const channel = await fetch(`${s.flowUrl}/livestream/channels`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ businessId: 1, channelId: 'ch1', name: 'x', liveStatus: 'live', startTime: null }) });
    assert.equal(channel.status, 200);
    await s.kill9();
    const env = join(s.dataDir, 'workflow', 'p0');
    await damageColdDatabase(env);
    s = await s.restart({ env: { TESSERA_TEST_LMDB_FOREGROUND_MS: '0' } });
    const report = /corruption in .*workflow\/p0\/data\.mdb at offset 0: LMDB's consistency read after an unclean shutdown failed .*restore this directory from a backup/;
    // Until the background read has finished the partition serves; then every call gets the damage.
    let health: Response;
    for (;;) {
      health = await fetch(`${s.flowUrl}/health`);
      if (health.status !== 200) break;
      await health.arrayBuffer();
      await new Promise((r) => setImmediate(r));
    }
    const body = await health.json() as { success: boolean; error: string };
    assert.equal(health.status, 503);
    assert.equal(body.success, false);
    assert.match(body.error, /^SERVICE_UNAVAILABLE: /);
    assert.match(body.error, report);
    const read = await fetch(`${s.flowUrl}/livestream/channels/businessId/1`);
    assert.equal(read.status, 503);
    const write = await fetch(`${s.flowUrl}/livestream/channels`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ businessId: 1, channelId: 'ch2', name: 'y', liveStatus: 'live', startTime: null }) });
    assert.equal(write.status, 503);
    assert.match((await write.json() as { error: string }).error, report);
    assert.match(s.stderr(), report, 'the log names the file');
    await s.stop();
    assert.equal(existsSync(join(env, 'closed-cleanly')), false, 'never marked closed cleanly: the next start checks it again');
  } finally {
    await s.destroy();
  }
});

test('damage the background read finds in the documents metadata store fails every shard, saying so', { timeout: 120_000 }, async () => {
  let s = await startServer({ services: ['documents'], workers: 1 });
  try {
    assert.equal((await esCall(s, 'PUT', '/kept/_doc/1?refresh=true', { n: 1 })).status, 201);
    await s.kill9();
    await damageColdDatabase(join(s.dataDir, 'lmdb'));
    s = await s.restart({ env: { TESSERA_TEST_LMDB_FOREGROUND_MS: '0' } });
    const report = /corruption in .*lmdb\/data\.mdb at offset 0: LMDB's consistency read after an unclean shutdown failed .*restore this directory from a backup/;
    let health: { status: number; body: any };
    for (;;) {
      health = await esCall(s, 'GET', '/_cluster/health');
      // Yellow (unassigned replicas) until the background read has finished; red once every shard is failed.
      if (health.body.status === 'red') break;
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(health.body.status, 'red');
    assert.equal(health.body.active_primary_shards, 0);
    const shards = await esCall(s, 'GET', '/_cat/shards/kept?format=json');
    assert.deepEqual([...new Set(shards.body.map((r: any) => r.state))], ['UNASSIGNED']);
    const get = await esCall(s, 'GET', '/kept/_doc/1');
    assert.equal(get.status, 503);
    assert.equal(get.body.error.type, 'no_shard_available_action_exception');
    assert.match(get.body.error.reason, report);
    const write = await esCall(s, 'PUT', '/kept/_doc/2', { n: 2 });
    assert.equal(write.status, 503);
    const search = await esCall(s, 'POST', '/kept/_search', { query: { match_all: {} } });
    assert.equal(search.status, 503);
    const create = await esCall(s, 'PUT', '/other', {});
    assert.equal(create.status, 500);
    assert.equal(create.body.error.type, 'corrupt_index_exception');
    assert.match(create.body.error.reason, report);
    assert.match(s.stderr(), /documents metadata store damaged/);
    assert.match(s.stderr(), report, 'the log names the file');
    await s.stop();
    assert.equal(existsSync(join(s.dataDir, 'lmdb', 'closed-cleanly')), false, 'never marked closed cleanly');
  } finally {
    await s.destroy();
  }
});
