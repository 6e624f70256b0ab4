/**
 * Child process of lmdb-spill.test.ts. Argument: a directory on a small file system to fill. A workflow
 * partition's backend commits one transaction with more dirty pages than LMDB keeps in memory (131,071), so
 * LMDB spills pages to the full disk mid-transaction; then the backend is closed, reopened once space is back,
 * and commits again. Prints one JSON line. A close that never settles leaves nothing for the event loop to
 * do: the process then ends with exit code 13 (unsettled top-level await) before printing.
 */
import { rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { LmdbKv } from '../../src/engine/workflow/lmdb-kv.ts';
import { packValue, type KvWrite } from '../../src/engine/workflow/kv.ts';
import { fillDisk } from '../support/small-disk.ts';

const dir = process.argv[2];
const filler = join(dir, 'filler');
const kvDir = join(dir, 'p0');
/** Each value takes an overflow page of its own (over half a 4 KiB page), so this many pages get dirty. */
const WRITES = 135_000;
const VALUE_BYTES = 2100;

let kv = LmdbKv.open(kvDir);
await kv.commit([{ space: 'ok', key: 'before', value: packValue(1) }]);
fillDisk(filler);
truncateSync(filler, statSync(filler).size - 512 * 1024);

const value = packValue(Buffer.alloc(VALUE_BYTES, 7));
const writes = new Array<KvWrite>(WRITES);
for (let i = 0; i < WRITES; i++) writes[i] = { space: 'big', key: `k${String(i).padStart(6, '0')}`, value };
const big = await kv.commit(writes).then(() => 'ok', (e: unknown) => String((e as { code?: unknown }).code ?? e));
await kv.close();

rmSync(filler);
kv = LmdbKv.open(kvDir);
const out = { big, closed: true, before: kv.get('ok', 'before'), bigVisible: kv.get('big', 'k000000') !== undefined, after: undefined as unknown };
await kv.commit([{ space: 'ok', key: 'after', value: packValue(3) }]);
out.after = kv.get('ok', 'after');
await kv.close();
console.log(JSON.stringify(out));
