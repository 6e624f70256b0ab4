/**
 * Routes of the Elasticsearch-compatible API on port 9200. The cluster metadata lives on the main thread
 * (LMDB-backed, opened in `start`); documents live in shard workers.
 */
import { startDiskWatermarks, type DiskWatermarks } from './disk-watermarks.ts';
import { MetaStore } from '../../engine/documents/meta-store.ts';
import { lmdbForegroundReadMs } from '../../runtime/lmdb-test-hook.ts';
import type { ServerContext, ServiceHooks } from '../context.ts';
import type { Router } from '../router.ts';
import { bannerResponse } from './banner.ts';
import { EsCluster } from './cluster.ts';
import { route } from './handler.ts';
import { wantsPretty } from './json.ts';
import { registerAliasRoutes } from './routes-aliases.ts';
import { registerBulkRoutes } from './routes-bulk.ts';
import { registerCatRoutes } from './routes-cat.ts';
import { registerSegmentRoutes } from './routes-segments.ts';
import { registerClusterRoutes } from './routes-cluster.ts';
import { registerSnapshotRoutes } from './routes-snapshot.ts';
import { registerAllocationExplainRoutes } from './routes-allocation-explain.ts';
import { registerNodeRoutes } from './routes-nodes.ts';
import { registerTaskRoutes } from './routes-tasks.ts';
import { registerRecoveryRoutes } from './routes-recovery.ts';
import { registerClusterStateRoutes } from './routes-cluster-state.ts';
import { registerDocRoutes } from './routes-docs.ts';
import { registerMgetRoutes } from './routes-mget.ts';
import { registerIngestRoutes } from './routes-ingest.ts';
import { registerRolloverRoutes } from './routes-rollover.ts';
import { registerFieldCapsRoutes } from './routes-field-caps.ts';
import { registerIndexRoutes } from './routes-indices.ts';
import { registerSearchRoutes } from './search-routes.ts';
import { registerByQueryRoutes } from './by-query.ts';
import { registerReindexRoutes } from './reindex.ts';
import { registerValidateRoutes } from './routes-validate.ts';
import { registerExplainRoutes } from './routes-explain.ts';
import { registerTermVectorsRoutes } from './routes-termvectors.ts';

export function registerEsRoutes(router: Router, ctx: ServerContext): ServiceHooks {
  let store: MetaStore | null = null;
  let watermarks: DiskWatermarks | null = null;
  const cluster = new EsCluster(ctx, {
    load: () => store!.load(),
    save: (prev, next) => store!.save(prev, next),
  });
  router.add(['GET', 'HEAD'], '/', route([], (req) => bannerResponse(ctx, wantsPretty(req))));
  registerIndexRoutes(router, cluster);
  registerDocRoutes(router, cluster);
  registerMgetRoutes(router, cluster);
  registerTermVectorsRoutes(router, cluster);
  registerIngestRoutes(router, cluster);
  registerRolloverRoutes(router, cluster);
  registerFieldCapsRoutes(router, cluster);
  registerBulkRoutes(router, cluster);
  registerAliasRoutes(router, cluster);
  registerCatRoutes(router, cluster);
  registerSegmentRoutes(router, cluster);
  registerClusterRoutes(router, cluster);
  registerSnapshotRoutes(router);
  registerAllocationExplainRoutes(router, cluster);
  registerNodeRoutes(router, cluster);
  registerTaskRoutes(router, cluster);
  registerRecoveryRoutes(router, cluster);
  registerClusterStateRoutes(router, cluster);
  const search = registerSearchRoutes(router, ctx, cluster);
  registerByQueryRoutes(router, cluster, search);
  registerReindexRoutes(router, cluster, search);
  registerValidateRoutes(router, cluster, search);
  registerExplainRoutes(router, cluster, search);
  return {
    start: async () => {
      store = MetaStore.open(ctx.dataDir, { foregroundReadMs: lmdbForegroundReadMs() });
      cluster.start();
      store.onDamage((err) => {
        cluster.metadataFailed(err);
        ctx.log.error('documents metadata store damaged: every shard is failed until it is restored', { err: err.message });
      });
      watermarks = startDiskWatermarks(cluster);
      // Recover every shard (snapshot + translog replay) before the node reports ready, as ES recovers
      // its shards at start-up, instead of paying it on each shard's first request.
      await cluster.stats(Object.values(cluster.state.indices));
    },
    stop: async () => {
      watermarks?.stop();
      await ctx.pool.broadcast('docs.closeAll', {});
      await store?.close();
    },
  };
}

export { EsCluster };
