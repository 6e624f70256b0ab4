import assert from 'node:assert/strict';
import { before, after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './server.ts';
import { esCall } from './es-call.ts';

/** What a test that drives a peer tool against the documents API gets from `peerToolNode`. */
export interface PeerToolNode {
  /** The running node (valid inside the tests). */
  readonly server: TestServer;
  /** A scratch directory for the tool's files, removed after the tests. */
  readonly dir: string;
  /** A call to the node's documents API that must succeed; its parsed reply. */
  es(method: string, path: string, body?: unknown, ndjson?: boolean): Promise<any>;
}

/**
 * Registers `before`/`after` hooks that start a documents node and make a scratch directory, unless the tool is
 * missing (`skip` is the skip message): then nothing starts, and the tests skip.
 */
export function peerToolNode(name: string, skip: string | false): PeerToolNode {
  let server: TestServer | undefined;
  let dir = '';
  before(async () => {
    if (skip) return;
    server = await startServer({ services: ['documents'], workers: 2 });
    dir = mkdtempSync(join(tmpdir(), `tessera-${name}-`));
  });
  after(async () => {
    await server?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get server() { return server!; },
    get dir() { return dir; },
    async es(method, path, body, ndjson = false) {
      const r = await esCall(server!, method, path, body, ndjson);
      assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    },
  };
}
