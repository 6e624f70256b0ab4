/**
 * WAL throughput (src/engine/wal).
 *
 * Measured:
 *  - append: one iteration = one group-commit batch of BATCH (256) concurrent `append` calls, i.e. one
 *    write + one fdatasync; reported as records/s and MB/s of payload, for 100-byte and 4 KiB records, with
 *    and without snappy.
 *  - baseline (same run, same disk): the floor the WAL sits on — one appending `write` of the same number
 *    of bytes plus one `fdatasync` per iteration, with no framing, checksums or compression. (Overwriting
 *    already-allocated blocks is ~8x cheaper on this disk; appending is what a log does.)
 *  - replay: open + replay + close of a pre-written log of ~16 MiB of 4 KiB (and 100-byte) records, as MB/s of
 *    payload delivered to the callback.
 * Data: seeded (mulberry32, seed 42) text-like payloads drawn from a 64-word vocabulary, so snappy compresses
 * them roughly 2–3×, as it does JSON documents and label sets.
 * Files go to os.tmpdir() (a real disk here, so fdatasync costs a real flush); segments are 16 MiB and old
 * ones are deleted as the benchmark runs so the disk footprint stays small.
 *
 * Run: node --import tsx bench/wal.bench.ts   (about 20 s; `--quick` shortens each task)
 */
import { Bench } from 'tinybench';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wal } from '../src/engine/wal/index.ts';
import { mulberry32 } from './support/mulberry32.ts';

const BATCH = 256;
const SEGMENT_BYTES = 16 * 1024 * 1024;
const quick = process.argv.includes('--quick');
const TASK_MS = quick ? 300 : 1200;


/** `count` payloads of `size` bytes of space-separated words from a small vocabulary. */
function payloads(count: number, size: number, rnd: () => number): Buffer[] {
  const words: string[] = [];
  for (let i = 0; i < 64; i++) words.push(Math.floor(rnd() * 2 ** 40).toString(36).slice(0, 3 + (i % 7)));
  const out: Buffer[] = [];
  for (let n = 0; n < count; n++) {
    let s = '';
    while (s.length < size) s += words[Math.floor(rnd() * words.length)] + (rnd() < 0.1 ? '":"' : ' ');
    out.push(Buffer.from(s.slice(0, size)));
  }
  return out;
}

const root = await mkdtemp(join(tmpdir(), 'tessera-wal-bench-'));
const sink: number[] = [];
const rows: { name: string; recordsPerS: number; mbPerS: number; extra: string }[] = [];

try {
  const bench = new Bench({ time: TASK_MS, warmupTime: 100, warmupIterations: 3, iterations: 8 });
  const meta = new Map<string, { records: number; bytes: number; extra: () => string }>();
  let dirN = 0;

  for (const size of [100, 4096]) {
    const data = payloads(BATCH, size, mulberry32(42));
    const batchBytes = data.reduce((a, b) => a + b.length, 0);
    for (const compress of [false, true]) {
      const name = `append ${size} B, snappy ${compress ? 'on ' : 'off'}, ${BATCH}/batch`;
      const dir = join(root, `a${dirN++}`);
      const wal = await Wal.open({ dir, compress, segmentSizeBytes: SEGMENT_BYTES });
      const written = { payload: 0 };
      bench.add(name, async () => {
        const ps: Promise<unknown>[] = new Array(BATCH);
        for (let i = 0; i < BATCH; i++) ps[i] = wal.append(1, data[i]);
        await Promise.all(ps);
        written.payload += batchBytes;
        if (wal.stats().segments > 2) await wal.truncateBefore(wal.position());
      });
      meta.set(name, {
        records: BATCH, bytes: batchBytes,
        extra: () => {
          const st = wal.stats();
          return `on-disk/payload ${(st.bytesWritten / Math.max(1, written.payload)).toFixed(2)}, ` +
            `records/fsync ${(st.records / Math.max(1, st.fsyncs)).toFixed(0)}`;
        },
      });
    }
    // Baseline: the same bytes appended to one file, one write + one fdatasync per iteration, no WAL. Like
    // the WAL it appends (fdatasync then also commits block allocation); the file is emptied every 16 MiB.
    const baseName = `baseline write+fdatasync ${size} B x ${BATCH}`;
    const fh = await open(join(root, `base-${size}`), 'w');
    const block = Buffer.concat(data);
    let pos = 0;
    bench.add(baseName, async () => {
      await fh.write(block, 0, block.length, pos);
      await fh.datasync();
      pos += block.length;
      if (pos + block.length > SEGMENT_BYTES) {
        await fh.truncate(0);
        pos = 0;
      }
    });
    meta.set(baseName, { records: BATCH, bytes: batchBytes, extra: () => 'no framing, no checksum' });
  }

  for (const [size, compress] of [[4096, false], [4096, true], [100, false]] as const) {
    const name = `replay ${size} B records, snappy ${compress ? 'on ' : 'off'}`;
    const dir = join(root, `r${dirN++}`);
    const data = payloads(BATCH, size, mulberry32(7));
    const wal = await Wal.open({ dir, compress, segmentSizeBytes: SEGMENT_BYTES });
    const target = 16 * 1024 * 1024;
    let total = 0;
    let recs = 0;
    while (total < target) {
      await wal.appendBatch(data.map((payload) => ({ type: 2, payload })));
      total += data.length * size;
      recs += data.length;
    }
    await wal.close();
    bench.add(name, async () => {
      const w = await Wal.open({ dir });
      let bytes = 0;
      await w.replay(null, (_t, p) => { bytes += p.length; });
      await w.close();
      sink.push(bytes);
    });
    meta.set(name, { records: recs, bytes: total, extra: () => `${(total / 1048576).toFixed(0)} MiB log` });
  }

  await bench.run();
  for (const task of bench.tasks) {
    const r = task.result;
    if (r.state !== 'completed') {
      console.error(`${task.name}: ${r.state}${'error' in r ? ` ${String(r.error)}` : ''}`);
      continue;
    }
    const m = meta.get(task.name)!;
    const opsPerS = 1000 / r.period;
    rows.push({
      name: task.name,
      recordsPerS: Math.round(opsPerS * m.records),
      mbPerS: Number(((opsPerS * m.bytes) / 1e6).toFixed(1)),
      extra: m.extra(),
    });
  }
  console.table(rows);
} finally {
  await rm(root, { recursive: true, force: true });
}
if (sink.length === 0) console.error('no replay ran');
