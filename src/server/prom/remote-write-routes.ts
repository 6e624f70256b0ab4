/**
 * Remote-write 1.0 receiver: `POST /api/v1/write` with a snappy-compressed protobuf `WriteRequest`.
 * Enabled by default (Prometheus needs `--web.enable-remote-write-receiver`): receiving from agents is
 * one of Tessera's ingestion paths. Replies as Prometheus's write handler does: 204 on success, 400 with
 * a plain-text reason for undecodable bodies and rejected samples (out of order, out of bounds,
 * duplicates), 500 for storage failures.
 */
import type { Router } from '../router.ts';
import type { HttpResponse } from '../http.ts';
import { EngineError } from '../../engine/errors.ts';
import { decodeWriteRequest } from '../../engine/scrape/remote-write-codec.ts';
import type { SampleSink } from '../../engine/scrape/sample-sink.ts';

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8' };

const REJECTED_RE = /out of order|out of bounds|duplicate sample|too old/i;

export function registerRemoteWriteRoutes(router: Router, sink: SampleSink): void {
  router.add('POST', '/api/v1/write', async (req): Promise<HttpResponse> => {
    let samples;
    try {
      samples = await decodeWriteRequest(req.body);
    } catch (e) {
      return { status: 400, headers: TEXT, body: `${(e as Error).message}\n` };
    }
    try {
      if (samples.length) await sink.append(samples);
    } catch (e) {
      const msg = (e as Error).message;
      const rejected = (e instanceof EngineError && e.code === 'INVALID_ARGUMENT') || REJECTED_RE.test(msg);
      return { status: rejected ? 400 : 500, headers: TEXT, body: `${msg}\n` };
    }
    return { status: 204, headers: {}, body: '' };
  });
}
