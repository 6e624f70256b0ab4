/**
 * Remote-write 1.0 receiver: `POST /api/v1/write` with a snappy-compressed protobuf `WriteRequest`.
 * Off unless `--web.enable-remote-write-receiver`, as in Prometheus 2.42: anyone who can reach the metrics
 * port could otherwise write any series. Disabled, it answers Prometheus's 404. Replies as Prometheus's write handler does: 204 on success, 400 with
 * a plain-text reason for undecodable bodies and refused samples (out of order, out of bounds,
 * duplicates), 500 for storage failures. Unlike Prometheus, which rolls the whole request back on the
 * first refused sample, the samples of the request that could be stored stay stored.
 */
import type { Router } from '../router.ts';
import type { HttpResponse } from '../http.ts';
import { EngineError, type ErrorCode } from '../../engine/errors.ts';
import { decodeWriteRequest } from '../../engine/remote/remote-write-codec.ts';
import type { SampleSink } from '../../engine/scrape/sample-sink.ts';

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8' };

interface RefusalSummary { outOfOrder: number; duplicate: number; outOfBounds: number; firstError: string }

/** Failures of the data, not of the server: Prometheus answers 400 so that the sender does not retry them. */
const REJECTED: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['INVALID_ARGUMENT', 'TSDB_OUT_OF_ORDER', 'TSDB_DUPLICATE_SAMPLE', 'TSDB_OUT_OF_BOUNDS']);

export function registerRemoteWriteRoutes(router: Router, sink: SampleSink, enabled: boolean): void {
  router.add('POST', '/api/v1/write', async (req): Promise<HttpResponse> => {
    if (!enabled) return { status: 404, headers: TEXT, body: 'remote write receiver needs to be enabled with --web.enable-remote-write-receiver\n' };
    let samples;
    try {
      samples = await decodeWriteRequest(req.body);
    } catch (e) {
      return { status: 400, headers: TEXT, body: `${(e as Error).message}\n` };
    }
    try {
      const summary = samples.length ? await sink.append(samples) as Partial<RefusalSummary> | undefined : undefined;
      // The TSDB counts per-sample refusals instead of throwing; Prometheus answers 400 for them so that
      // the sender does not retry data it can never store.
      if (summary && (summary.outOfOrder || summary.duplicate || summary.outOfBounds)) {
        return { status: 400, headers: TEXT, body: `${summary.firstError || 'out of order sample'}\n` };
      }
    } catch (e) {
      const rejected = e instanceof EngineError && REJECTED.has(e.code);
      return { status: rejected ? 400 : 500, headers: TEXT, body: `${(e as Error).message}\n` };
    }
    return { status: 204, headers: {}, body: '' };
  });
}
