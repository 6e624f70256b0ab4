/**
 * The PromQL benchmarks' data set, as OpenMetrics: 1,000 counters (`bench_http_requests_total`, 20 handlers,
 * 10 jobs) and 50 classic histograms × 12 buckets (`bench_latency_seconds`) over 6 h at 15 s, from a seeded
 * generator (the same bytes on every call); with `manySeries`, also 10,000 gauges over the last hour for the
 * regex-selector query. Shared by vs-prometheus.ts and server-ab.ts.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

export const START = 1_704_067_200, END = START + 6 * 3600, STEP = 15;

export async function writeDataset(file: string, manySeries: boolean): Promise<void> {
  let seed = 42;
  const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const w = createWriteStream(file);
  const write = async (s: string): Promise<void> => { if (!w.write(s)) await once(w, 'drain'); };
  await write('# TYPE bench_http_requests_total counter\n');
  for (let i = 0; i < 1000; i++) {
    let c = 0, buf = '';
    const l = `{handler="/h${i % 20}",instance="i${i}",job="job${i % 10}"}`;
    for (let t = START; t <= END; t += STEP) { c += Math.floor(rnd() * 10); buf += `bench_http_requests_total${l} ${c} ${t}\n`; }
    await write(buf);
  }
  const les = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];
  await write('# TYPE bench_latency_seconds histogram\n');
  for (let h = 0; h < 50; h++) {
    const rows: string[][] = les.map(() => []);
    const counts = new Array(les.length).fill(0);
    for (let t = START; t <= END; t += STEP) {
      for (let j = 0; j < 5; j++) { const b = Math.floor(rnd() * les.length); for (let x = b; x < les.length; x++) counts[x]++; }
      les.forEach((le, b) => rows[b].push(`bench_latency_seconds_bucket{handler="/h${h % 10}",instance="i${h}",le="${le}"} ${counts[b]} ${t}\n`));
    }
    for (const r of rows) await write(r.join(''));
  }
  if (manySeries) {
    await write('# TYPE bench_many gauge\n');
    for (let i = 0; i < 10_000; i++) {
      let buf = '';
      for (let t = END - 3600; t <= END; t += 60) buf += `bench_many{id="s${i}",group="g${i % 100}"} ${i % 7} ${t}\n`;
      await write(buf);
    }
  }
  await write('# EOF\n');
  w.end();
  await once(w, 'finish');
}
