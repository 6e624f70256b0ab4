/**
 * Curator 5.8 (Debian's elasticsearch-curator), the time-series index manager, runs the actions of
 * curator/actions.yml against a node; the test then reads what they did. Skipped when curator is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { peerToolNode } from '../support/peer-tool-node.ts';

const CURATOR = '/usr/bin/curator';
const hasCurator = spawnSync(CURATOR, ['--version'], { stdio: 'ignore' }).status === 0;
const skip = hasCurator ? false : 'curator is not installed (Debian package elasticsearch-curator): the curator test is skipped';
const ACTIONS = fileURLToPath(new URL('./curator/actions.yml', import.meta.url));

const node = peerToolNode('curator', skip);
const { es } = node;

/** `%Y.%m.%d` of a day `daysAgo` before today (UTC, as curator reads index names). */
function day(daysAgo: number): string {
  return new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '.');
}

test('curator 5.8: delete by name age, close (synced flush), open, alias, replicas, index settings, rollover, reindex, forcemerge', { skip }, async () => {
  const recent = `log-${day(1)}`;
  for (const name of [`log-${day(40)}`, `log-${day(35)}`, recent, 'cold']) await es('PUT', `/${name}`);
  await es('PUT', '/src', { settings: { number_of_shards: 2 } });
  await es('PUT', '/roll-000001', { aliases: { roll_w: {} } });
  await es('PUT', '/roll-000001/_doc/1?refresh=true', { a: 1 });
  const bulk = Array.from({ length: 30 }, (_, i) => `{"index":{"_id":"${i}"}}\n{"n":${i}}\n`).join('');
  assert.equal((await es('POST', '/src/_doc/_bulk?refresh=true', bulk, true)).errors, false);

  const { port } = new URL(node.server.esUrl);
  const config = join(node.dir, 'curator.yml');
  writeFileSync(config, `client:\n  hosts: [127.0.0.1]\n  port: ${port}\n  timeout: 60\nlogging:\n  loglevel: INFO\n`);
  const run = spawnSync(CURATOR, ['--config', config, ACTIONS], { encoding: 'utf8', timeout: 180_000 });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.doesNotMatch(run.stdout + run.stderr, /ERROR/);

  const indices = (await es('GET', '/_cat/indices?h=index,status&format=json') as { index: string; status: string }[])
    .map((i) => `${i.index} ${i.status}`).sort();
  assert.deepEqual(indices, [`${recent} open`, 'cold open', 'roll-000001 open', 'roll-000002 open', 'src open', 'src-copy open'].sort());
  assert.deepEqual(Object.keys(await es('GET', '/_alias/current')), [recent]);
  assert.deepEqual(Object.keys(await es('GET', '/_alias/roll_w')), ['roll-000002']);
  const settings = (await es('GET', '/src/_settings?flat_settings=true')).src.settings;
  assert.equal(settings['index.number_of_replicas'], '0');
  assert.equal(settings['index.refresh_interval'], '5s');
  assert.equal((await es('GET', '/src-copy/_count')).count, 30);
});
