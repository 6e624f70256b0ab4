/**
 * `tessera tsdb create-blocks-from openmetrics [--quiet] FILE [OUTPUT_DIR]`: promtool's backfill. Reads an
 * OpenMetrics file (timestamps in seconds, `# EOF` required) and writes 2 h-aligned blocks into
 * OUTPUT_DIR (default `data/`, as promtool). Exit codes: 0 done, 1 import failed, 2 bad command line.
 *
 * Serving the result: point OUTPUT_DIR at a server's TSDB directory (`--storage.tsdb.path`, default
 * `<path.data>/tsdb`). A server started afterwards serves the blocks; a running one picks them up on its
 * next reload (SIGHUP or `/-/reload`), see docs/metrics-ingestion.md.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { FetchedSeries } from '../engine/tsdb/api.ts';
import { planBlocks, readOpenMetrics } from '../engine/backfill/backfill.ts';
import { writeBlock as tsdbWriteBlock } from '../engine/tsdb/block-writer.ts';

export type WriteBlockFn = (dir: string, series: FetchedSeries[], mintMs: number, maxtMs: number) => Promise<string>;

export interface TsdbCliDeps {
  writeBlock?: WriteBlockFn;
  stdout?: (s: string) => void;
  stderr?: (s: string) => void;
}

const USAGE = 'usage: tessera tsdb create-blocks-from openmetrics [--quiet] FILE [OUTPUT_DIR]\n';

/** Runs `tsdb …` (argv after `tsdb`, or including it). Returns the process exit code. */
export async function runTsdbCli(argv: readonly string[], deps: TsdbCliDeps = {}): Promise<number> {
  const out = deps.stdout ?? ((s: string) => process.stdout.write(s));
  const err = deps.stderr ?? ((s: string) => process.stderr.write(s));
  const args = argv[0] === 'tsdb' ? argv.slice(1) : [...argv];
  const quiet = args.includes('--quiet') || args.includes('-q');
  const pos = args.filter((a) => a !== '--quiet' && a !== '-q');
  if (pos[0] !== 'create-blocks-from' || pos[1] !== 'openmetrics' || pos.length < 3 || pos.length > 4 || pos.some((a) => a.startsWith('-'))) {
    err(USAGE);
    return 2;
  }
  const [file, outDir = 'data/'] = pos.slice(2);
  const writeBlock = deps.writeBlock ?? tsdbWriteBlock;
  try {
    const input = await readOpenMetrics(file);
    const rows: string[][] = [];
    for (const b of planBlocks(input)) {
      const written = await writeBlock(outDir, b.series, b.mintMs, b.maxtMs);
      // The writer returns the block's ULID or its path.
      const path = written.includes('/') ? written : join(outDir, written);
      const { chunks, bytes } = await blockFigures(path);
      rows.push([basename(path), String(b.mintMs), String(b.maxtMs), goDuration(b.maxtMs - b.mintMs), String(b.samples),
        chunks, String(b.series.length), bytes]);
    }
    if (!quiet && rows.length) {
      out(table([['BLOCK ULID', 'MIN TIME', 'MAX TIME', 'DURATION', 'NUM SAMPLES', 'NUM CHUNKS', 'NUM SERIES', 'SIZE'], ...rows]));
    }
    return 0;
  } catch (e) {
    err(`tessera: ${(e as Error).message}\n`);
    return 1;
  }
}

/** Chunk count from meta.json and bytes on disk of a written block ('?' when unreadable). */
async function blockFigures(dir: string): Promise<{ chunks: string; bytes: string }> {
  try {
    const meta = JSON.parse(await readFile(join(dir, 'meta.json'), 'utf8')) as { stats?: { numChunks?: number } };
    return { chunks: String(meta.stats?.numChunks ?? '?'), bytes: String(await dirBytes(dir)) };
  } catch {
    return { chunks: '?', bytes: '?' };
  }
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? await dirBytes(p) : (await stat(p)).size;
  }
  return total;
}

/** Go's `time.Duration.String()` for a whole number of ms: `1ms`, `1m39.501s`, `2h0m0s`. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000), m = Math.floor((ms % 3_600_000) / 60_000), s = (ms % 60_000) / 1000;
  if (h) return `${h}h${m}m${s}s`;
  if (m) return `${m}m${s}s`;
  return `${s}s`;
}

/** promtool's table: columns padded to the widest cell plus two spaces (tabwriter). */
function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i] + 2)).join('').trimEnd()).join('\n') + '\n';
}
