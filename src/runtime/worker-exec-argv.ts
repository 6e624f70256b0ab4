/**
 * The command-line options a worker thread is started with. A Worker inherits `process.execArgv`, but refuses
 * to start (ERR_WORKER_INVALID_EXEC_ARGV) when it holds a V8 option (`--max-old-space-size=4096`,
 * `--stack-trace-limit=50`, `--perf-basic-prof`) or a per-process Node option (`--title`): an operator's
 * `node --max-old-space-size=8192 bin/tessera` would stop the node at start-up. Those options already apply to
 * every thread of the process (V8's flags are process-wide), so a worker is given only the per-thread options it
 * needs: module loaders and resolution conditions, profiling, source maps and warnings.
 */
import { RUNNING_COMPILED } from './running-compiled.ts';

/** Options a worker takes, by name (`--name` or `--name=value`). */
const FOR_WORKERS = new Set([
  '--import', '--require', '-r', '--loader', '--experimental-loader', '--conditions', '-C', '--enable-source-maps',
  '--cpu-prof', '--cpu-prof-dir', '--cpu-prof-name', '--cpu-prof-interval',
  '--heap-prof', '--heap-prof-dir', '--heap-prof-name', '--heap-prof-interval',
  '--no-warnings', '--trace-warnings', '--no-deprecation', '--trace-deprecation', '--throw-deprecation',
  '--unhandled-rejections', '--experimental-vm-modules', '--experimental-specifier-resolution', '--no-experimental-global-webcrypto',
]);

/**
 * `execArgv` without the options a worker refuses. An entry that does not start with `-` is the value of the
 * option before it (`--import tsx`) and goes where that option goes.
 */
export function optionsForWorkers(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  let keep = false;
  for (const a of execArgv) {
    if (a.startsWith('-')) {
      const eq = a.indexOf('=');
      keep = FOR_WORKERS.has(eq < 0 ? a : a.slice(0, eq));
    }
    if (keep) out.push(a);
  }
  return out;
}

/**
 * The options for this process's worker threads. Compiled (`dist/`), they need no loader. From the TypeScript
 * sources: when the main thread got tsx through `--import` the option is inherited; when `bin/tessera`
 * registered it in-process, workers need it passed explicitly.
 */
export function workerExecArgv(): string[] {
  const own = optionsForWorkers(process.execArgv);
  if (RUNNING_COMPILED || own.some((a) => a.includes('tsx'))) return own;
  return [...own, '--import', import.meta.resolve('tsx')];
}
