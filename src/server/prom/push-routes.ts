/**
 * Push-gateway endpoints on the metrics port (Pushgateway 1.5 API): `PUT|POST|DELETE
 * /metrics/job/<job>{/<label>/<value>}`. Design choice: pushed groups are not written to the TSDB
 * directly; they are exposed at `/pushgateway/metrics` and the built-in config scrapes that path with
 * `honor_labels: true`, exactly as a Prometheus would scrape a real Pushgateway (so pushed series get
 * `up`-style staleness and timestamps of the scrape, and `push_time_seconds`). The groups are kept in
 * `<data>/pushgateway.json` so a restart does not lose them (Pushgateway's `--persistence.file`); unlike the
 * Pushgateway, which saves on an interval, a push is answered only once it is on disk, like every other write.
 */
import { readFile } from 'node:fs/promises';
import { syncDir, writeFileAtomic } from '../../engine/store/durable-files.ts';
import { join } from 'node:path';
import type { ServerContext } from '../context.ts';
import type { HttpResponse } from '../http.ts';
import type { Router } from '../router.ts';
import { EngineError } from '../../engine/errors.ts';
import { parseGroupingPath, PushStore, type PushStoreState } from '../../engine/pushgateway/push-store.ts';
import { TEXT_CONTENT_TYPE } from '../../engine/exposition/exposition.ts';

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8' };

const PUSHGATEWAY_CORS = {
  'Access-Control-Allow-Headers': 'Accept, Authorization, Content-Type, Origin', 'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
  'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'Date', 'Cache-Control': 'no-cache, no-store, must-revalidate',
};

export function registerPushRoutes(router: Router, ctx: ServerContext): { start(): Promise<void>; stop(): Promise<void> } {
  const store = new PushStore();
  const file = join(ctx.dataDir, 'pushgateway.json');
  /** Writes the groups durably (temp file, fsync, rename, fsync of the directory), as Pushgateway's persistence file. */
  const save = async (): Promise<void> => {
    await writeFileAtomic(file, JSON.stringify(store.state()));
    await syncDir(ctx.dataDir);
  };

  // Changes run one at a time, each with its own save: a change whose save fails is undone before the next one
  // starts, so a push answered 500 is never served (a shared save would leave others' unsaved changes applied).
  let last: Promise<unknown> = Promise.resolve();
  const serially = (f: () => Promise<HttpResponse>): Promise<HttpResponse> => {
    const mine = last.then(f, f);
    last = mine.catch(() => undefined);
    return mine;
  };

  /** Applies a push or delete, and answers once it is on disk (a save failure is the client's 500, the change undone). */
  const handle = (method: string, rest: string, body: Buffer, contentType: string): Promise<HttpResponse> => serially(async () => {
    let status: number;
    const saved = store.state();
    try {
      const grouping = parseGroupingPath(rest);
      if (method === 'DELETE') {
        store.delete(grouping);
        status = 202;
      } else {
        if (contentType.startsWith('application/vnd.google.protobuf')) {
          return { status: 415, headers: TEXT, body: 'protobuf push bodies are not supported; push the text format\n' };
        }
        store.push(grouping, body.toString('utf8'), method === 'PUT', ctx.now());
        status = 200;
      }
    } catch (e) {
      if (e instanceof EngineError) return { status: 400, headers: TEXT, body: `${e.message}\n` };
      throw e;
    }
    try {
      await save();
    } catch (e) {
      store.restore(saved);
      ctx.log.error('saving push gateway groups failed; the change is undone', { err: e });
      return { status: 500, headers: TEXT, body: `saving the push gateway state failed: ${(e as Error).message}\n` };
    }
    return { status, headers: TEXT, body: '' };
  });

  for (const pattern of ['/metrics/job/:job', '/metrics/job/:job/*labels']) {
    router.add(['PUT', 'POST', 'DELETE'], pattern, (req, params) => {
      const rest = `job/${params.job}${params.labels ? `/${params.labels}` : ''}`;
      return handle(req.method, rest, req.body, req.headers['content-type'] ?? '');
    });
  }
  // `job@base64` names the job in base64, as the Pushgateway allows.
  for (const pattern of ['/metrics/job@base64/:job', '/metrics/job@base64/:job/*labels']) {
    router.add(['PUT', 'POST', 'DELETE'], pattern, (req, params) => {
      const rest = `job@base64/${params.job}${params.labels ? `/${params.labels}` : ''}`;
      return handle(req.method, rest, req.body, req.headers['content-type'] ?? '');
    });
  }
  // The Pushgateway's own API (its web UI and tools read it), with its always-open CORS headers.
  const startTime = new Date(ctx.now()).toISOString();
  const pgJson = (data: unknown): HttpResponse => ({ status: 200, headers: { 'Content-Type': 'application/json', ...PUSHGATEWAY_CORS }, body: JSON.stringify({ status: 'success', data }) });
  router.add('GET', '/api/v1/metrics', () => pgJson(store.apiGroups()));
  router.add('GET', '/api/v1/status', () => pgJson({
    flags: { 'persistence.file': file, 'web.enable-admin-api': String(ctx.flags['web.enable-admin-api']), 'web.enable-lifecycle': String(ctx.flags['web.enable-lifecycle']) },
    start_time: startTime,
    build_information: { version: 'tessera', revision: '', branch: '', buildUser: '', buildDate: '', goVersion: `node ${process.version}` },
  }));
  router.add(['GET', 'HEAD'], '/pushgateway/metrics', () => ({
    status: 200, headers: { 'Content-Type': TEXT_CONTENT_TYPE }, body: store.render(),
  }));

  return {
    async start() {
      try {
        store.restore(JSON.parse(await readFile(file, 'utf8')) as PushStoreState);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') ctx.log.warn('push gateway state not restored', { err: e });
      }
    },
    async stop() {
      await last;
    },
  };
}
