/**
 * Per-file and per-directory results. A file passes when every test that ran passed and at least one ran,
 * fails when any test failed (the first failure is its detail), and is skipped when every test was skipped.
 */
import type { TestOutcome } from './run-suite.ts';

export interface FileResult { file: string; status: 'pass' | 'fail' | 'skip'; pass: number; fail: number; skip: number; detail: string }

export function fileResult(file: string, tests: TestOutcome[]): FileResult {
  const count = (s: TestOutcome['status']) => tests.filter((t) => t.status === s).length;
  const failed = tests.find((t) => t.status === 'fail');
  const ran = tests.some((t) => t.status !== 'skip');
  const status = failed ? 'fail' : ran ? 'pass' : 'skip';
  const firstSkip = tests.find((t) => t.status === 'skip');
  const detail = failed ? `[${failed.name}] ${failed.detail}` : status === 'skip' ? (firstSkip?.detail ?? 'no tests') : '';
  return { file, status, pass: count('pass'), fail: count('fail'), skip: count('skip'), detail };
}

export function printDirectorySummary(results: FileResult[]): void {
  const dirs = new Map<string, [number, number, number]>();
  for (const r of results) {
    const d = r.file.includes('/') ? r.file.slice(0, r.file.lastIndexOf('/')) : '.';
    const t = dirs.get(d) ?? [0, 0, 0];
    t[r.status === 'pass' ? 0 : r.status === 'fail' ? 1 : 2]++;
    dirs.set(d, t);
  }
  console.log('| directory | files passed | failed | skipped |');
  console.log('|---|---|---|---|');
  const total = [0, 0, 0];
  for (const [d, [p, f, s]] of [...dirs].sort()) {
    console.log(`| ${d} | ${p} | ${f} | ${s} |`);
    total[0] += p; total[1] += f; total[2] += s;
  }
  console.log(`| **total** | ${total[0]} | ${total[1]} | ${total[2]} |`);
}
