/** Shared helpers of the WAL tests: temp dirs, a seeded PRNG, replay into an array. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wal, type WalOptions, type WalPosition } from '../../src/engine/wal/index.ts';

export async function tempDir(prefix = 'tessera-wal-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Mulberry32: deterministic test data. */
export { mulberry32 as prng } from '../../bench/support/mulberry32.ts';

/** A payload of `len` bytes whose first 4 bytes hold `id` (BE); compressible when `text` is set. */
export function payloadFor(id: number, len: number, rnd: () => number, text = false): Buffer {
  const buf = Buffer.alloc(Math.max(4, len));
  buf.writeUInt32BE(id, 0);
  for (let i = 4; i < buf.length; i++) buf[i] = text ? 97 + ((id + (i % 7)) % 5) : Math.floor(rnd() * 256);
  return buf;
}

export interface Replayed { type: number; payload: Buffer; pos: WalPosition }

export async function replayAll(opts: WalOptions, from: WalPosition | null = null): Promise<{ recs: Replayed[]; warnings: string[] }> {
  const warnings: string[] = [];
  const wal = await Wal.open({ ...opts, onWarning: (m) => warnings.push(m) });
  const recs: Replayed[] = [];
  try {
    await wal.replay(from, (type, payload, pos) => recs.push({ type, payload: Buffer.from(payload), pos }));
  } finally {
    await wal.close();
  }
  return { recs, warnings };
}
