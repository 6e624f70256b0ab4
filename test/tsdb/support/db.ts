/** Test helpers: a TSDB shard in a temp dir over an in-memory WAL, a controllable clock, sample builders. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Tsdb, type AppendBatch, type TsdbOptions } from '../../../src/engine/tsdb/db.ts';
import { labelsFromRecord } from '../../../src/engine/tsdb/labels.ts';
import type { Labels } from '../../../src/engine/tsdb/api.ts';
import { MemWalStore } from './mem-wal.ts';

export class TestClock {
  constructor(public ms = 1_700_000_000_000) {}
  now = (): number => this.ms;
  advance(ms: number): void { this.ms += ms; }
}

export function tempDir(prefix = 'tsdb-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function openTestDb(dir: string, store = new MemWalStore(), extra: Partial<TsdbOptions> = {}): Promise<{ db: Tsdb; store: MemWalStore }> {
  const db = await Tsdb.open({ dir, openWal: store.open, ...extra });
  return { db, store };
}

/** One batch from `[labels, t, v]` triples (labels as records). */
export function batch(samples: [Record<string, string>, number, number][]): AppendBatch {
  const keys = new Map<string, number>();
  const series: Labels[] = [];
  const sidx = new Uint32Array(samples.length);
  const ts = new Float64Array(samples.length), vs = new Float64Array(samples.length);
  samples.forEach(([ls, t, v], i) => {
    const k = JSON.stringify(Object.entries(ls).sort());
    let j = keys.get(k);
    if (j === undefined) { j = series.length; keys.set(k, j); series.push(labelsFromRecord(ls)); }
    sidx[i] = j; ts[i] = t; vs[i] = v;
  });
  return { series, sidx, ts, vs };
}

/** Samples of one series every `stepMs` in `[from, to)`, value = f(t). */
export function seriesBatch(ls: Record<string, string>, from: number, to: number, stepMs: number, f: (t: number) => number = (t) => t / 1000): AppendBatch {
  const s: [Record<string, string>, number, number][] = [];
  for (let t = from; t < to; t += stepMs) s.push([ls, t, f(t)]);
  return batch(s);
}
