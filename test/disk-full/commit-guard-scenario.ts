/**
 * Child process of workflow-commit-guard.test.ts (a failed LMDB commit also rejects lmdb-js promises that
 * nothing can await; the store adapter drops them, which node:test would report as failures in its own
 * process). Argument: a directory on a small file system to fill. Prints one JSON line of what it saw.
 */
import { rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { LmdbKv } from '../../src/engine/workflow/lmdb-kv.ts';
import { packValue, type KvWrite } from '../../src/engine/workflow/kv.ts';
import { fillDisk } from '../support/small-disk.ts';

const dir = process.argv[2];
const filler = join(dir, 'filler');
const kvDir = join(dir, 'p0');


const records = (space: string, n: number, bytes: number): KvWrite[] =>
  Array.from({ length: n }, (_, i) => ({ space, key: `k${String(i).padStart(4, '0')}`, value: packValue(Buffer.alloc(bytes, i & 0xff)) }));
const keys = (kv: LmdbKv, space: string): string[] => [...kv.range(space, '', '\uffff', 100)].map(([k]) => k);
const code = (e: unknown): string => String((e as { code?: unknown } | null)?.code ?? e);

let kv = LmdbKv.open(kvDir);
await kv.commit([{ space: 'ok', key: 'before', value: packValue(1) }]);
// Room for the small commits below, not for the large one.
fillDisk(filler);
truncateSync(filler, statSync(filler).size - 512 * 1024);

const big = kv.commit(records('big', 32, 64 * 1024));
let bigDone = false;
const bigResult = big.then(() => 'ok', code).finally(() => { bigDone = true; });
// Small commits queued behind the large one, one per event turn (transactions of their own in lmdb-js,
// after the large one's) until it has failed.
const small: Promise<void>[] = [];
for (let i = 0; !bigDone && i < 10_000; i++) {
  const p = kv.commit([{ space: 'queued', key: `q${String(i).padStart(5, '0')}`, value: packValue(i) }]);
  p.catch(() => undefined); // settled below, after the loop
  small.push(p);
  await nextTurn();
}
const settled = await Promise.allSettled(small);
const out = {
  big: await bigResult,
  queued: small.length,
  acknowledged: settled.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : [])),
  errors: [...new Set(settled.flatMap((r) => (r.status === 'rejected' ? [code(r.reason)] : [])))],
  visible: keys(kv, 'queued'),
  afterReopen: { visible: [] as string[], big: false, before: undefined as unknown, after: undefined as unknown },
};
await kv.close();

// What a partition restart sees, once space is back; and the reopened backend commits again.
rmSync(filler);
kv = LmdbKv.open(kvDir);
out.afterReopen.visible = keys(kv, 'queued');
out.afterReopen.big = kv.get('big', 'k0000') !== undefined;
out.afterReopen.before = kv.get('ok', 'before');
await kv.commit([{ space: 'ok', key: 'after', value: packValue(3) }]);
out.afterReopen.after = kv.get('ok', 'after');
await kv.close();
console.log(JSON.stringify(out));
