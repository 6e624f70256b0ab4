/**
 * Issue 16 §5: two nodes with different data directories must not share ports (uWS sets SO_REUSEPORT by
 * default, and the kernel then splits connections between them). The second one refuses to start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.ts';

const portOf = (url: string): string => new URL(url).port;

test('a second server on ports already taken fails to start with "address already in use"', async () => {
  const first = await startServer({ workers: 1 });
  try {
    for (const [flag, value] of [
      ['--http.port', portOf(first.esUrl)],
      ['--web.listen-address', `127.0.0.1:${portOf(first.promUrl)}`],
      ['--workflow.port', portOf(first.flowUrl)],
    ]) {
      const second = startServer({ workers: 1, args: [flag, value] });
      await assert.rejects(second, (err: Error) => {
        assert.match(err.message, /address already in use/, err.message);
        return true;
      }, `${flag} ${value}`);
    }
    // The first node still owns its ports.
    assert.equal((await fetch(`${first.esUrl}/`)).status, 200);
  } finally {
    await first.destroy();
  }
});
