/**
 * kill -9 of a process that is appending: every append whose promise resolved (the child prints its
 * sequence number only after that) must be in the log after replay.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { replayAll, tempDir } from './helpers.ts';

const CHILD = fileURLToPath(new URL('./fixtures/append-child.ts', import.meta.url));

/** Runs the child until it has acknowledged `acks` appends (or 15 s passed), then SIGKILLs it. */
function runAndKill(dir: string, acks: number): Promise<{ acked: Set<number>; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acked = new Set<number>();
    let partial = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const l of lines) acked.add(Number(l));
      if (acked.size >= acks) child.kill('SIGKILL');
    });
    child.stderr.on('data', (d) => { stderr += String(d); });
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`child exited on its own: ${stderr}`));
      else resolve({ acked, stderr });
    });
  });
}

test('kill -9 while appending: every acknowledged append survives replay', { timeout: 45_000 }, async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const { acked } = await runAndKill(dir, 3000);
    assert.ok(acked.size > 100, `child acknowledged only ${acked.size} appends`);
    const { recs } = await replayAll({ dir });
    const replayed = new Set<number>();
    for (const r of recs) {
      const seq = r.payload.readUInt32BE(0);
      assert.ok(!replayed.has(seq), `record ${seq} replayed twice`);
      replayed.add(seq);
      assert.equal(r.type, 1 + (seq % 3));
      assert.equal(r.payload.length, 64 + (seq % 300));
    }
    const missing = [...acked].filter((s) => !replayed.has(s));
    assert.deepEqual(missing, [], `acknowledged but lost: ${missing.slice(0, 10).join(',')}`);
    // A second crash after recovery still loses nothing acknowledged in either run.
    const second = await runAndKill(dir, 500);
    const again = await replayAll({ dir });
    const seqs = again.recs.map((r) => r.payload.readUInt32BE(0));
    assert.ok(again.recs.length >= recs.length + second.acked.size);
    assert.deepEqual(seqs.slice(0, recs.length), recs.map((r) => r.payload.readUInt32BE(0)));
  } finally {
    await cleanup();
  }
});
