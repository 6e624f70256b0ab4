/** Head series structure: shared label objects, series removal. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Head } from './head.ts';
import { HeadChunkFiles } from './head-chunks.ts';
import { labelsFromRecord } from './labels.ts';

function withHead(fn: (head: Head) => void): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'head-'));
  const files = new HeadChunkFiles(path.join(dir, 'chunks_head'));
  try { fn(new Head(7_200_000, files)); } finally { files.close(); rmSync(dir, { recursive: true, force: true }); }
}

test('head: a label pair carried by several series is one shared object; unique pairs stay their own', () => {
  withHead((head) => {
    const a = head.getOrCreate(labelsFromRecord({ __name__: 'up', job: 'api', n: '1' })).series;
    // Fresh strings, as decoded from a worker message.
    const b = head.getOrCreate(labelsFromRecord({ __name__: 'u' + 'p', job: ['a', 'pi'].join(''), n: '2' })).series;
    assert.deepEqual(b.labels.map((l) => `${l.name}=${l.value}`), ['__name__=up', 'job=api', 'n=2']);
    assert.equal(b.labels[0], a.labels[0], '__name__=up is shared');
    assert.equal(b.labels[1], a.labels[1], 'job=api is shared');
    assert.notEqual(b.labels[2], a.labels[2]);
    assert.equal(head.seriesOf(labelsFromRecord({ __name__: 'up', job: 'api', n: '2' })), b);
  });
});

test('head: once the series holding a shared pair is gone, new series share the pair of one still present', () => {
  withHead((head) => {
    const a = head.getOrCreate(labelsFromRecord({ job: 'api', n: '1' })).series;
    const b = head.getOrCreate(labelsFromRecord({ job: 'api', n: '2' })).series;
    head.append(a, 1000, 1);
    head.append(b, 9_000_000, 1);
    assert.deepEqual(head.truncate(7_200_000), [a.ref], 'a had only data before the cut');
    assert.equal(head.seriesOf(a.labels), undefined);
    const c = head.getOrCreate(labelsFromRecord({ job: 'api', n: '3' })).series;
    assert.equal(c.labels[0], b.labels[0]);
    assert.equal(c.labels[0].value, 'api');
  });
});
