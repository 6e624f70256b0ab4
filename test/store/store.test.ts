/** LMDB store: round trip, ranges, transactions, schema check, several threads on one environment. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/engine/store/lmdb.ts';
import { FormatVersionError } from '../../src/engine/errors.ts';
import { STORE_META_DB, STORE_SCHEMA_KEY, STORE_SCHEMA_VERSION } from '../../src/engine/codec/format-ids.ts';

const TSX_API = import.meta.resolve('tsx/esm/api');

async function withDir(fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-store-'));
  try {
    await fn(join(dir, 'lmdb'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('values round-trip through put/get/remove and survive reopening', () => withDir(async (path) => {
  const store = Store.open(path);
  const db = store.db<unknown>('things');
  const values: [string | number | (string | number)[], unknown][] = [
    ['plain', { a: 1, nested: { list: [1, 'two', null, true] } }],
    [42, 'a string'],
    [['idx', 3, 'doc'], [1.5, -2, 2 ** 40]],
    ['bytes', new Uint8Array([1, 2, 3])],
    ['date', new Date(1_700_000_000_000)],
  ];
  for (const [k, v] of values) assert.equal(await db.put(k, v), true);
  for (const [k, v] of values) assert.deepEqual(db.get(k), v, JSON.stringify(k));
  assert.equal(db.get('absent'), undefined);
  assert.equal(await db.remove(42), true);
  assert.equal(await db.remove(42), false);
  assert.equal(db.get(42), undefined);
  await store.close();
  const again = Store.open(path);
  assert.deepEqual(again.db('things').get(['idx', 3, 'doc']), [1.5, -2, 2 ** 40]);
  assert.equal(again.db('other').get('plain'), undefined, 'named databases are separate');
  await again.close();
}));

test('getRange walks composite keys in order, with bounds, reverse and limit', () => withDir(async (path) => {
  const store = Store.open(path);
  const db = store.db<number>('series');
  await store.transaction(() => {
    for (const name of ['b', 'a', 'c']) for (let i = 9; i >= 0; i--) db.putSync([name, i], i * 10);
  });
  const keys = (o?: Parameters<typeof db.getRange>[0]) => [...db.getRange(o)].map((e) => e.key);
  assert.equal(keys().length, 30);
  assert.deepEqual(keys({ start: ['b'], end: ['c'], limit: 3 }), [['b', 0], ['b', 1], ['b', 2]]);
  assert.deepEqual(keys({ start: ['b', 9], end: ['b', 6], reverse: true }), [['b', 9], ['b', 8], ['b', 7]]);
  assert.deepEqual([...db.getRange({ start: ['c', 8] })].map((e) => e.value), [80, 90]);
  await store.close();
}));

test('a transaction is atomic: a throw leaves nothing behind', () => withDir(async (path) => {
  const store = Store.open(path);
  const db = store.db<string>('t');
  await db.put('keep', 'v0');
  await assert.rejects(store.transaction(() => {
    db.putSync('keep', 'v1');
    db.putSync('new', 'x');
    throw new Error('boom');
  }), /boom/);
  assert.equal(db.get('keep'), 'v0');
  assert.equal(db.get('new'), undefined);
  const r = await store.transaction(() => {
    db.putSync('keep', 'v2');
    assert.equal(db.removeSync('missing'), false);
    return db.get('keep');
  });
  assert.equal(r, 'v2', 'reads inside a transaction see its writes');
  assert.equal(db.get('keep'), 'v2');
  await store.close();
}));

test('schema-version record is written on create and checked on open', () => withDir(async (path) => {
  const store = Store.open(path);
  assert.equal(store.db<number>(STORE_META_DB).get(STORE_SCHEMA_KEY), STORE_SCHEMA_VERSION);
  await store.db<number>(STORE_META_DB).put(STORE_SCHEMA_KEY, STORE_SCHEMA_VERSION + 1);
  await store.close();
  assert.throws(() => Store.open(path), (e: unknown) =>
    e instanceof FormatVersionError && e.details.found === STORE_SCHEMA_VERSION + 1 && String(e).includes(path));
  // Still refused on a second attempt (the failed open changed nothing).
  assert.throws(() => Store.open(path), FormatVersionError);
}));

test('several worker threads of one process open the same environment', { timeout: 30_000 }, () => withDir(async (path) => {
  const store = Store.open(path);
  const db = store.db<{ from: string; n: number }>('shared');
  await db.put('from-main', { from: 'main', n: 0 });
  const url = new URL('./fixtures/store-worker.ts', import.meta.url);
  const run = (id: number) => new Promise<{ seenFromMain: unknown }>((resolve, reject) => {
    // On Node 20 a worker does not apply `--import tsx` from its execArgv (measured: "Unknown file extension
    // .ts"), so a tiny eval'd bootstrap registers tsx's loader before importing the TypeScript worker.
    const boot = `import(${JSON.stringify(TSX_API)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`;
    const w = new Worker(boot, { eval: true, workerData: { path, id } });
    let msg: { seenFromMain: unknown } | undefined;
    w.on('message', (m) => { msg = m; });
    w.on('error', reject);
    w.on('exit', (code) => (code === 0 && msg ? resolve(msg) : reject(new Error(`worker ${id} exited ${code}`))));
  });
  const replies = await Promise.all([run(1), run(2)]);
  for (const r of replies) assert.deepEqual(r.seenFromMain, { from: 'main', n: 0 });
  await new Promise((r) => setImmediate(r)); // new event turn: the main thread's read snapshot is renewed
  for (const id of [1, 2]) {
    const mine = [...db.getRange({ start: ['worker', id], end: ['worker', id + 1] })];
    assert.equal(mine.length, 101, `records of worker ${id}`);
    assert.deepEqual(db.get(['worker', id, 57]), { from: `worker ${id}`, n: 57 });
  }
  await store.close();
}));
