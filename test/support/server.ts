/**
 * Test harness: runs a real Tessera child process (`bin/tessera`) on free loopback ports with a fresh
 * data directory, waits for its ready message over IPC, and can stop it, kill -9 it and restart it on the
 * same data directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/tessera', import.meta.url));

export interface StartOptions {
  /** Extra command-line flags. */
  args?: string[];
  services?: ('documents' | 'metrics' | 'workflow')[];
  /** Reuse a data directory (e.g. after kill9). Default: a fresh temporary one. */
  dataDir?: string;
  workers?: number;
  env?: Record<string, string>;
  /** Node flags for the server process (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). Default: the
   *  space-separated TESSERA_SERVER_NODE_ARGS, so a load test can be profiled without editing it. */
  nodeArgs?: string[];
}

export interface TestServer {
  readonly esUrl: string;
  readonly promUrl: string;
  readonly flowUrl: string;
  readonly dataDir: string;
  readonly pid: number;
  readonly stderr: () => string;
  /** SIGTERM and wait; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait. */
  kill9(): Promise<void>;
  /** Starts a new server on the same data directory with the same options. */
  restart(extra?: Partial<StartOptions>): Promise<TestServer>;
  /** Stops (if running) and deletes the data directory. */
  destroy(): Promise<void>;
}

// A test file that fails or times out must not leave servers behind: kill whatever is still running on exit.
const LIVE_CHILDREN = new Set<ChildProcess>();
process.once('exit', () => { for (const c of LIVE_CHILDREN) c.kill('SIGKILL'); });

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'tessera-test-'));
  const args = [
    '--path.data', dataDir,
    '--http.port', '0', '--web.listen-address', '127.0.0.1:0', '--workflow.port', '0',
    '--workers', String(opts.workers ?? 2),
    '--log.level', 'warn',
    '--services', (opts.services ?? ['documents', 'metrics', 'workflow']).join(','),
    ...(opts.args ?? []),
  ];
  const nodeArgs = opts.nodeArgs ?? (process.env.TESSERA_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []);
  const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, TESSERA_TEST_HOOKS: '1', ...opts.env },
  });
  LIVE_CHILDREN.add(child);
  child.once('exit', () => LIVE_CHILDREN.delete(child));
  let err = '';
  child.stderr!.on('data', (d) => { err += d; if (err.length > 1 << 20) err = err.slice(-(1 << 19)); });
  child.stdout!.resume();
  const ports = await waitReady(child, () => err);
  const exited = new Promise<number | null>((r) => { if (child.exitCode !== null) r(child.exitCode); else child.once('exit', (code) => r(code)); });
  const server: TestServer = {
    esUrl: `http://127.0.0.1:${ports.documents}`,
    promUrl: `http://127.0.0.1:${ports.metrics}`,
    flowUrl: `http://127.0.0.1:${ports.workflow}`,
    dataDir,
    pid: child.pid!,
    stderr: () => err,
    stop: async () => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM'); return exited; },
    kill9: async () => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); await exited; },
    restart: (extra = {}) => startServer({ ...opts, ...extra, dataDir }),
    destroy: async () => { await server.stop(); rmSync(dataDir, { recursive: true, force: true }); },
  };
  return server;
}

function waitReady(child: ChildProcess, stderr: () => string): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`server not ready in 30 s\n${stderr()}`)); }, 30_000);
    child.on('message', (m: { type: string; ports?: Record<string, number>; error?: string }) => {
      clearTimeout(timer);
      if (m.type === 'ready') resolve(m.ports!);
      else reject(new Error(`server failed to start: ${m.error}\n${stderr()}`));
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited with ${code} before ready\n${stderr()}`)); });
  });
}
