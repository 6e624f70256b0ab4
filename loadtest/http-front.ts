/**
 * Front-end overhead: requests/s of `GET /` on Tessera's documents port and of a request that makes one
 * shard-worker round trip, against bare node:http and bare uWebSockets.js servers answering the same bytes,
 * all in the same run. Servers are pinned to CPU 0 and autocannon runs on CPU 1.
 *
 *   node --import tsx loadtest/http-front.ts [seconds=5]
 *
 * The worker round trip is a real-time `GET /bench/_doc/1` (one call to the worker owning that shard).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, load, spawnPinned, table, wrkLoad, type LoadResult } from './support/run.ts';

const seconds = Number(process.argv[2] ?? 5);
const workerPath = '/bench/_doc/1';
const here = fileURLToPath(new URL('.', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tessera-load-'));

const [esPort, promPort, flowPort, nodePort, uwsPort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
const tessera = await spawnPinned(0, join(here, '../bin/tessera'), [
  '--path.data', join(dir, 'data'), '--http.port', String(esPort), '--web.listen-address', `127.0.0.1:${promPort}`,
  '--workflow.port', String(flowPort), '--log.level', 'warn',
]);
const banner = await (await fetch(`http://127.0.0.1:${esPort}/`)).arrayBuffer();
const put = await fetch(`http://127.0.0.1:${esPort}${workerPath}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"title":"hello","n":1}' });
if (put.status !== 201) throw new Error(`setup failed: ${put.status} ${await put.text()}`);
writeFileSync(join(dir, 'body.json'), Buffer.from(banner));
const bareNode = await spawnPinned(0, join(here, 'support/bare-servers.ts'), ['node', String(nodePort), join(dir, 'body.json')]);
const bareUws = await spawnPinned(0, join(here, 'support/bare-servers.ts'), ['uws', String(uwsPort), join(dir, 'body.json')]);

try {
  const rows = [];
  rows.push(await load('bare node:http', `http://127.0.0.1:${nodePort}/`, { seconds }));
  rows.push(await load('bare uWebSockets.js', `http://127.0.0.1:${uwsPort}/`, { seconds }));
  rows.push(await load('tessera GET /', `http://127.0.0.1:${esPort}/`, { seconds }));
  rows.push(await load(`tessera worker round trip (${workerPath})`, `http://127.0.0.1:${esPort}${workerPath}`, { seconds }));
  console.log('autocannon (1 connection group, no pipelining):\n' + table(rows, rows[0]));
  report(rows);
  const targets: [string, string][] = [
    ['bare node:http', `http://127.0.0.1:${nodePort}/`], ['bare uWebSockets.js', `http://127.0.0.1:${uwsPort}/`],
    ['tessera GET /', `http://127.0.0.1:${esPort}/`], [`tessera worker round trip (${workerPath})`, `http://127.0.0.1:${esPort}${workerPath}`],
  ];
  const wrkRows: LoadResult[] = [];
  for (const [name, url] of targets) { const r = await wrkLoad(name, url, { seconds }); if (r) wrkRows.push(r); }
  if (wrkRows.length === 4) { console.log('\nwrk (pinned to CPU 1):\n' + table(wrkRows, wrkRows[0])); report(wrkRows); }
} finally {
  for (const c of [tessera, bareNode, bareUws]) c.kill('SIGTERM');
  setTimeout(() => rmSync(dir, { recursive: true, force: true }), 1000);
}

function report(rows: LoadResult[]): void {
  console.log(`worker round trip vs bare uWS: ${(rows[3].reqPerSec / rows[1].reqPerSec).toFixed(2)}× (target ≥ 0.40); vs bare node:http: ${(rows[3].reqPerSec / rows[0].reqPerSec).toFixed(2)}× (target ≥ 1.3)`);
}
