/**
 * `npm run bench [-- [--quick] [--list] [name…]]`: runs the micro-benchmarks, `bench/**\/*.bench.ts`, one child
 * process each (a fresh heap and JIT per file, `--expose-gc` for the files that count allocations), in path
 * order, and stops at the first that fails. Names select files by substring (`npm run bench -- regex wal`);
 * `--quick` is passed on to every file, which then shortens its tasks (a smoke pass). `--list` prints the
 * files. bench/promql/vs-prometheus.ts is not a micro-benchmark (it drives a Prometheus binary over HTTP) and
 * runs on its own; end-to-end load tests live in loadtest/.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BENCH_DIR = join(ROOT, 'bench');

function benchFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...benchFiles(p));
    else if (name.endsWith('.bench.ts')) out.push(relative(ROOT, p));
  }
  return out;
}

const args = process.argv.slice(2);
const passOn = args.filter((a) => a.startsWith('--') && a !== '--list');
const names = args.filter((a) => !a.startsWith('--'));
const files = benchFiles(BENCH_DIR).filter((f) => names.length === 0 || names.some((n) => f.includes(n)));

if (args.includes('--list')) {
  for (const f of files) console.log(f);
} else if (files.length === 0) {
  console.error(`no benchmark matches ${names.join(', ')}; see npm run bench -- --list`);
  process.exitCode = 1;
} else {
  for (const f of files) {
    console.log(`\n── ${f} ${passOn.join(' ')}`);
    const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', f, ...passOn], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) {
      console.error(`${f} failed (${r.signal ?? `exit ${r.status}`})`);
      process.exitCode = 1;
      break;
    }
  }
}
