/**
 * Remote-read endpoint, `POST /api/v1/read`, as Prometheus 2.42's read handler answers it: each query's
 * matchers run against the TSDB over its time range; an equality matcher on an external label with the
 * configured value is dropped first, and series get the external labels they lack. The reply is a
 * snappy-compressed `ReadResponse` of samples, or, when the client lists `STREAMED_XOR_CHUNKS` first among
 * the types it accepts, a stream of `ChunkedReadResponse` frames with XOR chunks (one frame per series).
 */
import type { ServerContext } from '../context.ts';
import type { HttpResponse } from '../http.ts';
import type { Router } from '../router.ts';
import type { FetchedSeries, Label, Matcher, MatchType } from '../../engine/tsdb/api.ts';
import { newMatcher } from '../../engine/tsdb/api.ts';
import {
  decodeReadRequest, encodeChunkedFrame, encodeReadResponse, RESPONSE_SAMPLES, RESPONSE_STREAMED_XOR_CHUNKS,
  type ReadQuery, type ReadSeries,
} from '../../engine/remote/remote-read-codec.ts';

export interface ReadStorage {
  select(matchers: readonly Matcher[], mintMs: number, maxtMs: number): Promise<FetchedSeries[]>;
}

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8' };

export function registerRemoteReadRoutes(router: Router, ctx: ServerContext, storage: ReadStorage, externalLabels: () => readonly Label[]): void {
  let queries = 0;
  ctx.metrics.gauge('prometheus_api_remote_read_queries', 'The current number of remote read queries being executed or waiting.', [], () => [[[], queries]]);
  router.add('POST', '/api/v1/read', async (req): Promise<HttpResponse> => {
    let request;
    try {
      request = await decodeReadRequest(req.body);
    } catch (e) {
      return { status: 400, headers: TEXT, body: `${(e as Error).message}\n` };
    }
    const ext = externalLabels();
    queries++;
    try {
      const results = await Promise.all(request.queries.map((q) => runQuery(storage, q, ext)));
      if (negotiate(request.acceptedResponseTypes) === RESPONSE_STREAMED_XOR_CHUNKS) {
        const frames: Uint8Array[] = [];
        results.forEach((series, qi) => { for (const s of series) frames.push(encodeChunkedFrame(qi, [s])); });
        return {
          status: 200, headers: { 'Content-Type': 'application/x-streamed-protobuf; proto=prometheus.ChunkedReadResponse' },
          body: Buffer.concat(frames),
        };
      }
      return {
        status: 200, headers: { 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'snappy' },
        body: await encodeReadResponse(results),
      };
    } catch (e) {
      return { status: 500, headers: TEXT, body: `${(e as Error).message}\n` };
    } finally {
      queries--;
    }
  });
}

/** The first accepted type this server supports; samples when the client lists none. */
function negotiate(accepted: number[]): number {
  for (const t of accepted) if (t === RESPONSE_SAMPLES || t === RESPONSE_STREAMED_XOR_CHUNKS) return t;
  return RESPONSE_SAMPLES;
}

async function runQuery(storage: ReadStorage, q: ReadQuery, ext: readonly Label[]): Promise<ReadSeries[]> {
  const extMap = new Map(ext.map((l) => [l.name, l.value] as [string, string]));
  const matchers = q.matchers
    .filter((m) => !(m.type === 0 && extMap.has(m.name) && extMap.get(m.name) === m.value))
    .map((m) => newMatcher(m.type as MatchType, m.name, m.value));
  const fetched = await storage.select(matchers, q.startMs, q.endMs);
  const out: ReadSeries[] = [];
  for (const s of fetched) {
    if (s.t.length === 0) continue;
    out.push({ labels: withExternal(s.labels, ext), t: s.t, v: s.v });
  }
  out.sort((a, b) => (key(a.labels) < key(b.labels) ? -1 : 1));
  return out;
}

/** External labels added where the series lacks them, sorted by name. */
function withExternal(labels: readonly Label[], ext: readonly Label[]): Label[] {
  if (ext.length === 0) return labels as Label[];
  const names = new Set(labels.map((l) => l.name));
  return [...labels, ...ext.filter((l) => !names.has(l.name))].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function key(labels: readonly Label[]): string {
  return labels.map((l) => `${l.name}\u0000${l.value}`).join('\u0001');
}
