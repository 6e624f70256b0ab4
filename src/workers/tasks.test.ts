/** The shard worker's op table: the documents areas are added on first use, and every op is then served. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isLazyOp, loadDocumentTasks, TASKS } from './tasks.ts';
import { documentsFigures } from './documents-figures.ts';

test('documents ops are absent until loadDocumentTasks, then present; metrics ops are there from the start', async () => {
  assert.equal(typeof TASKS['tsdb.append'], 'function');
  assert.equal(typeof TASKS['core.stats'], 'function');
  assert.equal(TASKS['docs.write'], undefined, 'the documents tasks were imported with the table');
  assert.equal(TASKS['search.query'], undefined);
  assert.deepEqual(documentsFigures(), { cacheBytes: 0, cacheHits: 0, cacheMisses: 0, indexBufferBytes: 0 });
  assert.equal(isLazyOp('docs.write'), true);
  assert.equal(isLazyOp('search.count'), true);
  assert.equal(isLazyOp('tsdb.append'), false);
  await Promise.all([loadDocumentTasks(), loadDocumentTasks()]);
  assert.equal(typeof TASKS['docs.write'], 'function');
  const lazy = Object.keys(TASKS).filter(isLazyOp);
  assert.ok(lazy.some((op) => op.startsWith('search.')), lazy.join(' '));
  // docs-tasks registered its figures when it loaded (zeros still: no shard is open).
  assert.deepEqual(documentsFigures(), { cacheBytes: 0, cacheHits: 0, cacheMisses: 0, indexBufferBytes: 0 });
});
