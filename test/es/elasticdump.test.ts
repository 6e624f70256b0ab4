/**
 * elasticdump 6 (the npm tool people move Elasticsearch indices with) dumps an index's settings, mapping and
 * documents to files and loads them into another index, then copies the documents node-to-node. .ci/run
 * installs it under .ci/peers (`npm install --prefix .ci/peers elasticdump@6.125.1`); skipped without it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { peerToolNode } from '../support/peer-tool-node.ts';

const ELASTICDUMP = fileURLToPath(new URL('../../.ci/peers/node_modules/elasticdump/bin/elasticdump', import.meta.url));
const skip = existsSync(ELASTICDUMP) ? false
  : 'elasticdump is not installed (npm install --prefix .ci/peers elasticdump@6.125.1, as .ci/run does): the elasticdump test is skipped';

const node = peerToolNode('elasticdump', skip);
const { es } = node;

function dump(...args: string[]): void {
  const r = spawnSync(process.execPath, [ELASTICDUMP, ...args], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `elasticdump ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  assert.match(r.stdout, /dump complete/);
}

test('elasticdump 6: settings, mapping and data to files and back into a new index; data node to node', { skip }, async () => {
  const mapping = { properties: { title: { type: 'text' }, n: { type: 'integer' }, tag: { type: 'keyword' } } };
  await es('PUT', '/src', { settings: { number_of_shards: 2, number_of_replicas: 0 }, mappings: { _doc: mapping } });
  const bulk = Array.from({ length: 250 }, (_, i) => `{"index":{"_id":"${i}"}}\n${JSON.stringify({ title: `doc number ${i}`, n: i, tag: `t${i % 5}` })}\n`).join('');
  assert.equal((await es('POST', '/src/_doc/_bulk?refresh=true', bulk, true)).errors, false);

  const src = `${node.server.esUrl}/src`, dst = `${node.server.esUrl}/dst`;
  for (const type of ['settings', 'mapping', 'data']) dump(`--input=${src}`, `--output=${join(node.dir, `${type}.json`)}`, `--type=${type}`);
  // Its data file is one hit per line, each with its source.
  const lines = readFileSync(join(node.dir, 'data.json'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, 250);
  assert.deepEqual(lines.find((l) => l._id === '17')._source, { title: 'doc number 17', n: 17, tag: 't2' });

  for (const type of ['settings', 'mapping', 'data']) dump(`--input=${join(node.dir, `${type}.json`)}`, `--output=${dst}`, `--type=${type}`);
  await es('POST', '/dst/_refresh');
  assert.equal((await es('GET', '/dst/_count')).count, 250);
  assert.deepEqual((await es('GET', '/dst/_mapping')).dst.mappings._doc, mapping);
  assert.equal((await es('GET', '/dst/_settings')).dst.settings.index.number_of_shards, '2');
  assert.deepEqual((await es('GET', '/dst/_doc/17'))._source, { title: 'doc number 17', n: 17, tag: 't2' });
  assert.equal((await es('POST', '/dst/_count', { query: { term: { tag: 't1' } } })).count, 50);

  // Straight from one index to another, in pages of 100 over a scroll, with a query.
  dump(`--input=${src}`, `--output=${node.server.esUrl}/copy`, '--type=data', '--limit=100', '--searchBody={"query":{"range":{"n":{"lt":120}}}}');
  await es('POST', '/copy/_refresh');
  assert.equal((await es('GET', '/copy/_count')).count, 120);
});
