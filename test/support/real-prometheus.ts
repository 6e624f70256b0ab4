/**
 * Runs Debian's real Prometheus 2.42 beside Tessera in tests: `PROMETHEUS` is its path or undefined (tests
 * then skip with `NO_PROMETHEUS`), `startPrometheus` starts it on a free loopback port with a given config
 * and resolves once `/-/ready` answers. Stop it with the returned `stop`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PROMETHEUS = ['/usr/bin/prometheus', '/usr/local/bin/prometheus'].find((p) => existsSync(p));
export const NO_PROMETHEUS: string | false = PROMETHEUS ? false : 'prometheus not installed (Debian package prometheus): the test against the real Prometheus 2.42 is skipped';

export interface RealPrometheus { url: string; stop(): Promise<void>; log(): string }

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
  });
}

export async function startPrometheus(configYaml: string, args: string[] = []): Promise<RealPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-real-prom-'));
  writeFileSync(join(dir, 'prometheus.yml'), configYaml);
  const port = await freePort();
  const proc = spawn(PROMETHEUS!, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr!.on('data', (c: Buffer) => { log += c.toString(); });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  let gone = false;
  void exited.then(() => { gone = true; });
  const stop = async (): Promise<void> => {
    if (!gone) proc.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  while (!gone) {
    try { if ((await fetch(`${url}/-/ready`)).ok) return { url, stop, log: () => log }; } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 20));
  }
  await stop();
  throw new Error(`prometheus exited before it was ready:\n${log}`);
}
