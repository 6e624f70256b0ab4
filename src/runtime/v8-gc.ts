/** V8's full collection, for the threads' memory policies (idle-gc.ts, large-task-release.ts). */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | null = null;

/**
 * Runs one full collection. V8's `gc` function is taken on the first call, not at start-up: the context it comes
 * from costs 10-35 ms and ~2 MB of resident memory per thread (docs/benchmarks.md, issue 11).
 */
export function collectGarbage(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}
