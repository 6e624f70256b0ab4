/**
 * Checks test scripts against the real Prometheus 2.42 (Debian's `prometheus` + `promtool`): each segment's
 * `load`s are backfilled as OpenMetrics into a fresh TSDB, a server is started on loopback, and every eval is
 * sent over HTTP and compared with the script's expectation. Segments with stale markers are skipped (OpenMetrics
 * cannot express them). With `--tessera` the same segments go through Tessera's importer and a real Tessera
 * server instead (end to end over HTTP). Not part of `npm test` (it needs the binaries); run:
 *   node --import tsx test/promql/reference-check.ts [--tessera] test/promql/scripts/*.test
 */
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { parseSeriesLine, parseValues, STALE } from './runner.ts';
import { parseDurationMsOrNull } from '../../src/engine/model/duration.ts';
import { labelsKey } from '../../src/engine/tsdb/labels.ts';
import type { Labels } from '../../src/engine/tsdb/api.ts';

interface Eval { line: number; header: string; expected: string[] }
interface Segment { series: Map<string, { labels: Labels; points: [number, number][] }>; evals: Eval[]; stale: boolean }

function segments(text: string): Segment[] {
  const lines = text.split('\n').map((l) => l.trim()).map((l) => (l.startsWith('#') ? '' : l));
  const out: Segment[] = [];
  let cur: Segment = { series: new Map(), evals: [], stale: false };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l === '') continue;
    if (l === 'clear') { out.push(cur); cur = { series: new Map(), evals: [], stale: false }; continue; }
    if (l.startsWith('load')) {
      const interval = parseDurationMsOrNull(l.split(/\s+/)[1])!;
      for (i++; i < lines.length && lines[i] !== ''; i++) {
        const { labels, rest } = parseSeriesLine(lines[i]);
        const k = labelsKey(labels);
        const s = cur.series.get(k) ?? { labels, points: [] };
        cur.series.set(k, s);
        parseValues(rest.split(/\s+/).filter(Boolean)).forEach((v, n) => {
          if (v === STALE) cur.stale = true;
          else if (v !== null) s.points.push([n * interval, v]);
        });
      }
      continue;
    }
    const ev: Eval = { line: i + 1, header: l, expected: [] };
    for (i++; i < lines.length && lines[i] !== ''; i++) ev.expected.push(lines[i]);
    i--;
    cur.evals.push(ev);
  }
  out.push(cur);
  return out.filter((s) => s.evals.length > 0);
}

function omValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function openMetrics(seg: Segment): string {
  let out = '';
  for (const s of seg.series.values()) {
    const name = s.labels.find((l) => l.name === '__name__')?.value ?? '';
    const rest = s.labels.filter((l) => l.name !== '__name__').map((l) => `${l.name}=${JSON.stringify(l.value)}`).join(',');
    for (const [t, v] of s.points.sort((a, b) => a[0] - b[0])) out += `${name}${rest ? `{${rest}}` : ''} ${omValue(v)} ${t / 1000}\n`;
  }
  return out + '# EOF\n';
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => { const p = (srv.address() as { port: number }).port; srv.close(() => resolve(p)); });
  });
}

/** Where the segment's data goes and which server answers: the real Prometheus, or Tessera itself. */
interface Target { start(dir: string, om: string): Promise<{ base: string; stop(): Promise<unknown> } | string> }

const PROMETHEUS: Target = {
  async start(dir, om) {
    writeFileSync(join(dir, 'prom.yml'), 'global:\n  evaluation_interval: 1m\n');
    const bf = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', om, join(dir, 'tsdb')], { encoding: 'utf8' });
    if (bf.status !== 0) return `backfill failed: ${bf.stderr}`;
    const port = await freePort();
    const proc = spawn('prometheus', [`--config.file=${join(dir, 'prom.yml')}`, `--storage.tsdb.path=${join(dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${port}`, '--storage.tsdb.retention.time=100y', '--log.level=error'], { stdio: 'ignore' });
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100; i++) { try { if ((await fetch(`${base}/-/ready`)).ok) break; } catch { /* starting */ } await new Promise((r) => setTimeout(r, 100)); }
    return { base, stop: async () => proc.kill('SIGTERM') };
  },
};

/** Tessera end to end: its own importer writes the blocks, a real server process answers over HTTP. */
const TESSERA: Target = {
  async start(dir, om) {
    const bin = join(dirname(fileURLToPath(import.meta.url)), '../../bin/tessera');
    const bf = spawnSync(process.execPath, [bin, 'tsdb', 'create-blocks-from', 'openmetrics', om, join(dir, 'data', 'tsdb')], { encoding: 'utf8' });
    if (bf.status !== 0) return `import failed: ${bf.stderr}`;
    const { startServer } = await import('../support/server.ts');
    const srv = await startServer({ dataDir: join(dir, 'data'), services: ['metrics'] });
    return { base: srv.promUrl, stop: () => srv.stop() };
  },
};

async function runSegment(seg: Segment, file: string, target: Target): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'promref-'));
  const problems: string[] = [];
  try {
    writeFileSync(join(dir, 'data.om'), openMetrics(seg));
    const srv = await target.start(dir, join(dir, 'data.om'));
    if (typeof srv === 'string') return seg.evals.map((ev) => `${file}:${ev.line} ${ev.header}\n    ${srv}`);
    try {
      for (const ev of seg.evals) {
        const p = await check(srv.base, ev);
        if (p) problems.push(`${file}:${ev.line} ${ev.header}\n    ${p}`);
      }
    } finally { await srv.stop(); }
  } finally { rmSync(dir, { recursive: true, force: true }); }
  return problems;
}

type Sample = { metric: Record<string, string>; value?: [number, string]; values?: [number, string][] };

function keyOf(m: Record<string, string>): string {
  return Object.keys(m).sort().map((k) => `${k}=${m[k]}`).join(',');
}

function close(a: number, b: number): boolean {
  if (Number.isNaN(a) && Number.isNaN(b)) return true;
  if (a === b) return true;
  return Math.abs(a - b) / Math.min(Math.abs(a) + Math.abs(b), Number.MAX_VALUE) < 1e-6;
}

function expectedMap(ev: Eval, range: boolean, start = 0, step = 0): Map<string, [number, number][]> | number {
  const m = new Map<string, [number, number][]>();
  for (const line of ev.expected) {
    if (/^[+-]?(inf|nan|\d|\.\d)/i.test(line) && !line.includes(' ')) return Number(line.replace(/^\+?inf$/i, 'Infinity').replace(/^-inf$/i, '-Infinity'));
    const { labels, rest } = parseSeriesLine(line);
    const vals = parseValues(rest.split(/\s+/).filter(Boolean));
    const pts: [number, number][] = [];
    vals.forEach((v, k) => { if (typeof v === 'number') pts.push([range ? start + k * step : 0, v]); });
    m.set(keyOf(Object.fromEntries(labels.map((l) => [l.name, l.value]))), pts);
  }
  return m;
}

async function check(base: string, ev: Eval): Promise<string | null> {
  const inst = /^eval(?:_(fail|ordered))?\s+instant\s+(?:at\s+(.+?))?\s+(.+)$/.exec(ev.header);
  const range = /^eval(?:_(fail))?\s+range\s+from\s+(.+)\s+to\s+(.+)\s+step\s+(.+?)\s+(.+)$/.exec(ev.header);
  let url: string, fail: boolean, start = 0, step = 0;
  if (inst) {
    fail = inst[1] === 'fail';
    url = `${base}/api/v1/query?query=${encodeURIComponent(inst[3])}&time=${parseDurationMsOrNull(inst[2] ?? '0s')! / 1000}`;
  } else if (range) {
    fail = range[1] === 'fail';
    start = parseDurationMsOrNull(range[2])!; step = parseDurationMsOrNull(range[4])!;
    url = `${base}/api/v1/query_range?query=${encodeURIComponent(range[5])}&start=${start / 1000}&end=${parseDurationMsOrNull(range[3])! / 1000}&step=${step / 1000}`;
  } else return `unknown header`;
  const r = await (await fetch(url)).json() as { status: string; error?: string; data: { resultType: string; result: unknown } };
  if (fail) return r.status === 'error' ? null : 'expected an error, reference succeeded';
  if (r.status !== 'success') return `reference error: ${r.error}`;
  const want = expectedMap(ev, !!range, start, step);
  if (r.data.resultType === 'scalar') {
    const v = Number((r.data.result as [number, string])[1].replace('Inf', 'Infinity'));
    return typeof want === 'number' && close(v, want) ? null : `reference scalar ${v}, script expects ${JSON.stringify(ev.expected)}`;
  }
  if (typeof want === 'number') {
    const res = r.data.result as Sample[];
    if (range && res.length === 1 && keyOf(res[0].metric) === '') return null;
    return `script expects scalar ${want}, reference gave ${r.data.resultType}`;
  }
  const got = r.data.result as Sample[];
  if (got.length !== want.size) return `reference has ${got.length} series, script expects ${want.size}: ${JSON.stringify(got).slice(0, 300)}`;
  for (const s of got) {
    const w = want.get(keyOf(s.metric));
    if (!w) return `reference series ${keyOf(s.metric)} not expected`;
    const pts = (s.values ?? [s.value!]).map(([t, v]) => [Math.round(t * 1000), Number(v.replace('Inf', 'Infinity'))] as [number, number]);
    if (pts.length !== w.length) return `series ${keyOf(s.metric)}: reference ${JSON.stringify(pts)}, script ${JSON.stringify(w)}`;
    for (let i = 0; i < pts.length; i++) {
      if ((range && pts[i][0] !== w[i][0]) || !close(pts[i][1], w[i][1])) return `series ${keyOf(s.metric)}: reference ${JSON.stringify(pts)}, script ${JSON.stringify(w)}`;
    }
  }
  return null;
}

let total = 0, bad = 0, skipped = 0;
const args = process.argv.slice(2);
const target = args[0] === '--tessera' ? TESSERA : PROMETHEUS;
for (const file of args.filter((a) => a !== '--tessera')) {
  for (const seg of segments(readFileSync(file, 'utf8'))) {
    if (seg.stale) { skipped += seg.evals.length; continue; }
    total += seg.evals.length;
    const problems = await runSegment(seg, file, target);
    bad += problems.length;
    for (const p of problems) console.log(p);
  }
}
console.log(`${target === TESSERA ? 'Tessera over HTTP' : 'Prometheus 2.42'}: ${total - bad}/${total} evals give the scripts' expected results (${skipped} skipped: stale markers)`);
