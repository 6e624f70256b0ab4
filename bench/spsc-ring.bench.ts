/**
 * SPSC ring (src/engine/queue/spsc-ring.ts) throughput between two threads.
 *
 * Measured: one iteration moves MESSAGES messages of 64 bytes (and of 1 KiB) from a worker thread (producer,
 * blocking `write` with back-pressure on a 1 MiB ring) to the main thread (consumer, blocking `read`);
 * reported as messages/s. Baseline in the same run: the same messages sent with `postMessage` (structured
 * clone of a Uint8Array) and counted on the main thread's 'message' event.
 *
 * Run: node --import tsx bench/spsc-ring.bench.ts   (about 10 s)
 */
import { Bench } from 'tinybench';
import { Worker } from 'node:worker_threads';
import { SpscRing } from '../src/engine/queue/spsc-ring.ts';

const MESSAGES = 100_000;
const RING = SpscRing.create(1 << 20);
const entry = new URL('../src/engine/queue/spsc-ring.ts', import.meta.url).href;
const tsx = import.meta.resolve('tsx/esm/api');

// The producer thread: registers tsx, then answers {kind, n, size} by producing n messages of `size` bytes.
const producer = new Worker(`
  const { parentPort, workerData } = require('node:worker_threads');
  (async () => {
    const { register } = await import(${JSON.stringify(tsx)}); register();
    const { SpscRing } = await import(${JSON.stringify(entry)});
    const ring = SpscRing.attach(workerData.sab);
    parentPort.on('message', ({ kind, n, size }) => {
      const msg = new Uint8Array(size).fill(7);
      if (kind === 'ring') { for (let i = 0; i < n; i++) ring.write(msg); }
      else { for (let i = 0; i < n; i++) parentPort.postMessage(msg); }
    });
    parentPort.postMessage('ready');
  })();
`, { eval: true, workerData: { sab: RING.buffer } });
await new Promise<void>((r) => producer.once('message', () => r()));

function viaRing(size: number): void {
  producer.postMessage({ kind: 'ring', n: MESSAGES, size });
  let bytes = 0;
  for (let i = 0; i < MESSAGES; i++) bytes += RING.read(10_000)!.byteLength;
  if (bytes !== MESSAGES * size) throw new Error('lost messages');
}

function viaPostMessage(size: number): Promise<void> {
  return new Promise((resolve) => {
    let got = 0;
    const on = (m: Uint8Array) => { if (m.byteLength === size && ++got === MESSAGES) { producer.off('message', on); resolve(); } };
    producer.on('message', on);
    producer.postMessage({ kind: 'post', n: MESSAGES, size });
  });
}

const bench = new Bench({ time: 1500, iterations: 3 });
bench
  .add('spsc ring, 64 B', () => viaRing(64))
  .add('postMessage baseline, 64 B', () => viaPostMessage(64))
  .add('spsc ring, 1 KiB', () => viaRing(1024))
  .add('postMessage baseline, 1 KiB', () => viaPostMessage(1024));
await bench.run();
console.log('| task | messages/s | mean ms per 100k |');
console.log('|---|---|---|');
for (const t of bench.tasks) {
  const r = t.result;
  if (r.state !== 'completed') { console.error(`${t.name}: ${r.state}`); continue; }
  const mean = r.latency.mean;
  console.log(`| ${t.name} | ${Math.round(MESSAGES / (mean / 1000)).toLocaleString('en')} | ${mean.toFixed(1)} |`);
}
await producer.terminate();
