/**
 * A WAL batch whose write or fsync fails (wal/failed-batch.ts), for both writers (the document translog's and
 * the TSDB's Prometheus-format one): the owner hears (`onFailure`) before any append of the batch rejects, the
 * rejection is DISK_FULL for ENOSPC and INTERNAL otherwise, later appends are refused, and a reopen replays
 * exactly the records acknowledged before — not those of the failed batch, although a failed fsync leaves
 * them whole in the file. Faults are injected into FileHandle's `datasync` (fsync) and `write`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, promises as fsp, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wal } from '../../src/engine/wal/index.ts';
import { PromWal } from '../../src/engine/tsdb/prom-wal.ts';
import { EngineError } from '../../src/engine/errors.ts';

type Proto = { datasync: () => Promise<void>; write: (...a: unknown[]) => Promise<unknown> };

/** Makes the next call of FileHandle's `method` fail with `code`, then restores it. */
async function failNext(method: 'datasync' | 'write', code: string): Promise<void> {
  const probe = join(tmpdir(), `tessera-fh-probe-${process.pid}`);
  const fh = await fsp.open(probe, 'w');
  const proto = Object.getPrototypeOf(fh) as Proto;
  await fh.close();
  rmSync(probe, { force: true });
  const orig = proto[method];
  proto[method] = async function (this: unknown, ...args: unknown[]) {
    // A failed fsync after a successful write: the bytes are in the file, the batch is still refused.
    if (method === 'datasync') await (orig as () => Promise<void>).apply(this);
    else await (orig as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    proto[method] = orig as never;
    throw Object.assign(new Error(`${code}: injected`), { code });
  } as never;
}

const payload = (i: number): Uint8Array => Buffer.from(`record-${i}-`.repeat(10));

for (const [method, code, wireCode] of [['datasync', 'EIO', 'INTERNAL'], ['write', 'ENOSPC', 'DISK_FULL']] as const) {
  test(`document WAL: a failed ${method} (${code}) rejects the batch (${wireCode}) and leaves no record of it`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-walfail-'));
    try {
      const events: string[] = [];
      const wal = await Wal.open({ dir, onFailure: () => events.push('onFailure') });
      await wal.replay(null, () => undefined);
      await wal.append(1, payload(0));
      await wal.append(1, payload(1));
      await failNext(method, code);
      const refused = [wal.append(1, payload(2)), wal.append(1, payload(3))];
      const outcomes = await Promise.allSettled(refused.map((p) => p.catch((e: unknown) => { events.push('reject'); throw e; })));
      assert.deepEqual(events, ['onFailure', 'reject', 'reject']);
      for (const o of outcomes) {
        assert.equal(o.status, 'rejected');
        assert.ok((o as PromiseRejectedResult).reason instanceof EngineError);
        assert.equal(((o as PromiseRejectedResult).reason as EngineError).code, wireCode);
      }
      await assert.rejects(wal.append(1, payload(4)), (e: EngineError) => e.code === wireCode);
      await wal.close();
      const again = await Wal.open({ dir });
      const got: string[] = [];
      await again.replay(null, (_t, p) => { got.push(Buffer.from(p).toString()); });
      assert.deepEqual(got, [payload(0), payload(1)].map((p) => Buffer.from(p).toString()));
      await again.append(1, payload(5));
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test(`TSDB WAL: a failed ${method} (${code}) rejects the batch (${wireCode}) and leaves no record of it`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-promwalfail-'));
    try {
      const events: string[] = [];
      const wal = await PromWal.open({ dir, compress: false, onFailure: () => events.push('onFailure') });
      await wal.replay(() => undefined);
      await wal.log([payload(0)]);
      await failNext(method, code);
      const refused = wal.log([payload(1), payload(2)]).catch((e: unknown) => { events.push('reject'); throw e; });
      await assert.rejects(refused, (e: EngineError) => e.code === wireCode);
      assert.deepEqual(events, ['onFailure', 'reject']);
      await assert.rejects(wal.log([payload(3)]), (e: EngineError) => e.code === wireCode);
      await wal.close();
      const again = await PromWal.open({ dir, compress: false });
      const got: string[] = [];
      await again.replay((r) => { got.push(Buffer.from(r).toString()); });
      assert.deepEqual(got, [Buffer.from(payload(0)).toString()]);
      await again.log([payload(4)]);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
