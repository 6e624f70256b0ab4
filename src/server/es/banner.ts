/**
 * `GET /`: the node banner real clients read to decide they talk to Elasticsearch 6.8. The cluster uuid is
 * made once per data directory (stored beside the lock file) so it is stable across restarts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { syncDirSync, writeFileAtomicSync } from '../../engine/store/durable-files.ts';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ServerContext } from '../context.ts';
import type { HttpResponse } from '../http.ts';

export const ES_VERSION = {
  number: '6.8.23',
  build_flavor: 'oss',
  build_type: 'tar',
  build_hash: '4f67856',
  build_date: '2022-01-06T21:30:50.087716Z',
  build_snapshot: false,
  lucene_version: '7.7.3',
  minimum_wire_compatibility_version: '5.6.0',
  minimum_index_compatibility_version: '5.0.0',
};

let cached: { name: string; uuid: string } | null = null;

export function nodeIdentity(dataDir: string): { name: string; uuid: string } {
  if (cached) return cached;
  const file = join(dataDir, 'cluster.uuid');
  let uuid: string;
  if (existsSync(file)) uuid = readFileSync(file, 'utf8').trim();
  else {
    uuid = randomBytes(16).toString('base64url').slice(0, 22);
    // Atomically: a crash must not leave an empty uuid file that the next start would take as the uuid.
    writeFileAtomicSync(file, [uuid + '\n']);
    syncDirSync(dataDir);
  }
  cached = { name: hostname().split('.')[0].slice(0, 7) || 'tessera', uuid };
  return cached;
}

const HEADERS = { 'content-type': 'application/json; charset=UTF-8' };
let compact = '';

export function bannerResponse(ctx: ServerContext, pretty: boolean): HttpResponse {
  const id = nodeIdentity(ctx.dataDir);
  const body = { name: id.name, cluster_name: 'elasticsearch', cluster_uuid: id.uuid, version: ES_VERSION, tagline: 'You Know, for Search' };
  // Load balancers and clients poll `GET /`; the compact form never changes, so it is serialised once.
  if (!pretty) return { status: 200, headers: HEADERS, body: (compact ||= JSON.stringify(body)) };
  return { status: 200, headers: HEADERS, body: JSON.stringify(body, null, 2).replace(/": /g, '" : ') + '\n' };
}
