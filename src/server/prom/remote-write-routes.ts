/**
 * Remote-write 1.0 receiver: `POST /api/v1/write` with a snappy-compressed protobuf `WriteRequest`.
 * Off unless `--web.enable-remote-write-receiver`, as in Prometheus 2.42: anyone who can reach the metrics
 * port could otherwise write any series. Disabled, it answers Prometheus's 404. Replies as Prometheus's
 * write handler does: 204 on success; 400 with a plain-text reason for undecodable bodies and refused
 * samples (out of order, out of bounds, duplicates); 500 for label sets the head refuses (empty, a name
 * twice: Prometheus's `invalid sample`) and storage failures. A request refused while decoding stores
 * nothing; unlike Prometheus, which rolls the whole request back on the first refused sample, the samples
 * of a request that could be stored stay stored.
 */
import type { Router } from '../router.ts';
import type { HttpResponse } from '../http.ts';
import { EngineError, type ErrorCode } from '../../engine/errors.ts';
import { uncompressSync } from '../../engine/codec/snappy.ts';
import { RemoteWriteIngest } from '../../engine/remote/remote-write-ingest.ts';
import type { SampleSink } from '../../engine/scrape/sample-sink.ts';

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8' };

interface RefusalSummary { outOfOrder: number; duplicate: number; outOfBounds: number; firstError: string }

/** Failures of the data, not of the server: Prometheus answers 400 so that the sender does not retry them. */
const REJECTED: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['INVALID_ARGUMENT', 'TSDB_OUT_OF_ORDER', 'TSDB_DUPLICATE_SAMPLE', 'TSDB_OUT_OF_BOUNDS']);

function text(status: number, body: string): HttpResponse { return { status, headers: TEXT, body: `${body}\n` }; }

export function registerRemoteWriteRoutes(router: Router, sink: SampleSink, enabled: boolean, now: () => number = Date.now): void {
  const ingest = new RemoteWriteIngest(sink);
  router.add('POST', '/api/v1/write', async (req): Promise<HttpResponse> => {
    if (!enabled) return text(404, 'remote write receiver needs to be enabled with --web.enable-remote-write-receiver');
    let raw: Buffer;
    try {
      // Synchronous: a request body is tens of kB (microseconds to inflate), and the asynchronous call's two
      // thread hand-offs per request cost more than that where the server shares one core. One call per
      // request, each in its own event-loop turn, stays clear of snappy.ts's memory trap.
      raw = uncompressSync(req.body);
    } catch {
      return text(400, 'snappy: corrupt input');
    }
    try {
      const summary = await ingest.ingest(raw, now()) as Partial<RefusalSummary> | null | undefined;
      // The TSDB counts per-sample refusals instead of throwing; Prometheus answers 400 for them so that
      // the sender does not retry data it can never store.
      if (summary && (summary.outOfOrder || summary.duplicate || summary.outOfBounds)) return text(400, summary.firstError || 'out of order sample');
    } catch (e) {
      const rejected = e instanceof EngineError && REJECTED.has(e.code);
      return text(rejected ? 400 : 500, (e as Error).message);
    }
    return { status: 204, headers: {}, body: '' };
  });
}
