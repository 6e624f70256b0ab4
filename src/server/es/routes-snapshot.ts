/**
 * Snapshot repositories and remote clusters, as an Elasticsearch 6.8 node answers with neither configured:
 * Tessera has no snapshot and restore (docs/documents.md, known limits) and no `path.repo`, so no repository can
 * be registered. Listings are empty, a named repository is missing (what curator's snapshot actions check first),
 * and a registration fails with the reason ES gives for its type.
 */
import { docError, validationFailed } from '../../engine/documents/doc-errors.ts';
import type { HttpRequest } from '../http.ts';
import type { Params, Router } from '../router.ts';
import { CAT_PARAMS, renderCat, type CatColumn } from './cat-table.ts';
import { bodyMap, route } from './handler.ts';
import { json } from './json.ts';

const REPOSITORIES: CatColumn[] = [{ name: 'id', desc: 'unique repository id' }, { name: 'type', desc: 'repository type' }];

export function registerSnapshotRoutes(router: Router): void {
  router.add('GET', '/_remote/info', route([], (req) => json(req, 200, {})));
  router.add('GET', '/_cat/repositories', route(CAT_PARAMS, (req) => renderCat(req, REPOSITORIES, [])));
  router.add('GET', '/_snapshot', route(['master_timeout', 'local'], (req) => json(req, 200, {})));
  router.add('GET', '/_snapshot/_status', route(['master_timeout'], (req) => json(req, 200, { snapshots: [] })));
  router.add('GET', '/_snapshot/:repository', route(['master_timeout', 'local'], (req, p) => {
    // `_all` and patterns match the repositories there are: none.
    const named = p.repository.split(',').find((n) => n !== '_all' && !n.includes('*'));
    if (named !== undefined) throw missing(named);
    return json(req, 200, {});
  }));
  router.add(['PUT', 'POST'], '/_snapshot/:repository', route(['master_timeout', 'timeout', 'verify'], (req, p) => register(req, p)));
  const repositoryMissing = (_req: HttpRequest, p: Params): never => { throw missing(p.repository); };
  router.add('GET', '/_cat/snapshots/:repository', route([...CAT_PARAMS, 'ignore_unavailable'], repositoryMissing));
  const SNAPSHOT_PARAMS = ['master_timeout', 'timeout', 'wait_for_completion', 'ignore_unavailable', 'verbose'];
  router.add('DELETE', '/_snapshot/:repository', route(['master_timeout', 'timeout'], repositoryMissing));
  router.add('POST', '/_snapshot/:repository/_verify', route(['master_timeout', 'timeout'], repositoryMissing));
  router.add('GET', '/_snapshot/:repository/_status', route(SNAPSHOT_PARAMS, repositoryMissing));
  router.add(['GET', 'PUT', 'POST', 'DELETE'], '/_snapshot/:repository/:snapshot', route(SNAPSHOT_PARAMS, repositoryMissing));
  router.add('GET', '/_snapshot/:repository/:snapshot/_status', route(SNAPSHOT_PARAMS, repositoryMissing));
  router.add('POST', '/_snapshot/:repository/:snapshot/_restore', route(SNAPSHOT_PARAMS, repositoryMissing));
}

function missing(repository: string) {
  return docError('DOC_REPOSITORY_MISSING', [repository]);
}

/** A repository registration: refused as ES refuses it without `path.repo` or the type's plugin. */
function register(req: HttpRequest, p: Params): never {
  const body = bodyMap(req, true)!;
  if (typeof body.type !== 'string' || body.type === '') throw validationFailed(['type is missing']);
  const settings = (typeof body.settings === 'object' && body.settings !== null ? body.settings : {}) as Record<string, unknown>;
  let reason: string;
  if (body.type === 'fs') {
    reason = settings.location === undefined || settings.location === '' ? 'missing location'
      : `location [${String(settings.location)}] doesn't match any of the locations specified by path.repo because this setting is empty`;
  } else if (body.type === 'url') {
    reason = settings.url === undefined || settings.url === '' ? 'missing url'
      : `file url [${String(settings.url)}] doesn't match any of the locations specified by path.repo or repositories.url.allowed_urls`;
  } else {
    reason = `repository type [${body.type}] does not exist`;
  }
  const name = p.repository;
  throw docError('DOC_REPOSITORY', [name, 'failed to create repository'], { cause: { code: 'DOC_REPOSITORY', message: `[${name}] ${reason}`, details: {} } });
}
