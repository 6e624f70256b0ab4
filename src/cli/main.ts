/**
 * `tessera [flags]` runs a node; `tessera -d` runs it in the background and returns once it is ready;
 * `tessera tsdb …` runs the offline TSDB tools. Exit codes: 0 ok, 1 start-up failure, 2 bad command line.
 */
import { spawn } from 'node:child_process';
import { openSync, mkdirSync, writeFileSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseFlags, FlagError, type Flags } from '../server/flags.ts';
import { startTessera } from '../server/main.ts';
import { WebConfigError } from '../server/web-config.ts';
import { runSubcommand } from './subcommands.ts';

/** Message a child sends its parent (daemon launcher or test harness) over IPC. */
export type StartupMessage = { type: 'ready'; pid: number; ports: Record<string, number> } | { type: 'failed'; error: string; exitCode?: number };

async function main(argv: string[]): Promise<number> {
  const sub = await runSubcommand(argv);
  if (sub !== null) return sub;
  let flags: Flags;
  try {
    flags = parseFlags(argv).flags;
  } catch (err) {
    if (err instanceof FlagError) { process.stderr.write(`tessera: ${err.message}\n`); return 2; }
    throw err;
  }
  if (flags.daemonize) return daemonize(argv, flags);
  return serve(flags);
}

async function serve(flags: Flags): Promise<number> {
  let node;
  try {
    node = await startTessera(flags);
  } catch (err) {
    const msg = (err as Error).message;
    // A web config file that cannot be used is a command-line problem (exit 2), as Prometheus's `Validate` exit.
    const code = err instanceof WebConfigError ? 2 : 1;
    process.stderr.write(code === 2 ? `tessera: ${msg}\n` : `tessera: start-up failed: ${msg}\n`);
    report({ type: 'failed', error: msg, exitCode: code });
    return code;
  }
  const pidfile = flags.pidfile ? resolve(flags.pidfile) : '';
  if (pidfile) writeFileSync(pidfile, `${process.pid}\n`);
  const shutdown = (): void => { void node.stop(); };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.on('SIGHUP', () => { node.reload().catch((err) => process.stderr.write(`tessera: reload failed, keeping the old configuration: ${(err as Error).message}\n`)); });
  report({ type: 'ready', pid: process.pid, ports: node.ports as Record<string, number> });
  await node.stopped;
  if (pidfile) { try { unlinkSync(pidfile); } catch { /* removed already */ } }
  return 0;
}

function report(msg: StartupMessage): void {
  if (process.send) {
    process.send(msg);
    if (msg.type === 'ready' && process.env.TESSERA_KEEP_IPC !== '1') process.disconnect();
  }
}

/** Starts the same command without `-d` in a detached child and waits for its ready/failed message. */
function daemonize(argv: string[], flags: Flags): Promise<number> {
  const childArgs = argv.filter((a) => a !== '-d');
  const dataDir = resolve(flags['path.data']);
  mkdirSync(dataDir, { recursive: true });
  const log = openSync(join(dataDir, 'tessera.log'), 'a');
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1], ...childArgs], {
    detached: true,
    stdio: ['ignore', log, log, 'ipc'],
  });
  return new Promise((done) => {
    child.on('message', (m: StartupMessage) => {
      if (m.type === 'ready') { child.unref(); child.disconnect?.(); done(0); }
      else if (m.exitCode === 2) { process.stderr.write(`tessera: ${m.error}\n`); done(2); }
      else { process.stderr.write(`tessera: start-up failed: ${m.error}\n`); done(1); }
    });
    child.on('exit', (code) => {
      process.stderr.write(`tessera: server exited during start-up (code ${code}); see ${join(dataDir, 'tessera.log')}\n`);
      done(1);
    });
  });
}

main(process.argv.slice(2)).then(
  // Exit explicitly: a stopped node may still hold handles (workers winding down, idle sockets).
  (code) => { setImmediate(() => process.exit(code)); },
  (err) => { process.stderr.write(`tessera: ${(err as Error).stack ?? err}\n`); process.exit(1); },
);
