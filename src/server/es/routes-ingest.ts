/**
 * The ingest API (`_ingest/pipeline` CRUD and `_simulate`) and the step every index write takes through it:
 * the pipeline a write names (`?pipeline=`, a bulk item's `pipeline`, reindex's `dest.pipeline`) or else its
 * index's `index.default_pipeline` runs on the coordinating node before the write is routed, and may change
 * the document's source, index, id and routing, drop it, or fail it. `_none` means no pipeline.
 */
import { simpleMatch } from '../../engine/documents/cluster-state.ts';
import { docError, illegalArgument, validationFailed } from '../../engine/documents/doc-errors.ts';
import { IngestDocument } from '../../engine/documents/ingest/ingest-document.ts';
import { compilePipeline, runPipeline, type Pipeline, type ProcessorTrace } from '../../engine/documents/ingest/pipeline.ts';
import { resolveWrite } from '../../engine/documents/resolve.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Params, Router } from '../router.ts';
import type { EsCluster } from './cluster.ts';
import { errorBody } from './errors.ts';
import { bodyMap, route } from './handler.ts';
import { json } from './json.ts';
import { boolParam } from './params.ts';

/** A write after its pipeline: what to store, or nothing (dropped). */
export type Ingested = { kind: 'write'; index: string; id: string | undefined; routing: string | undefined; source: Uint8Array } | { kind: 'dropped' };

/**
 * Runs the pipeline for one index write. `requested` is the pipeline the request names (undefined: the target
 * index's default pipeline, if any). Throws the processor's error when the document fails.
 */
export function ingest(cluster: EsCluster, requested: string | undefined, index: string, type: string, id: string | undefined,
  routing: string | undefined, source: Uint8Array): Ingested {
  // Most writes name no pipeline and no pipeline exists: they skip the default-pipeline lookup (a bulk's hot path).
  if (requested === undefined && !hasPipelines(cluster)) return { kind: 'write', index, id, routing, source };
  const pipelineId = requested ?? defaultPipeline(cluster, index);
  if (pipelineId === undefined || pipelineId === '_none') return { kind: 'write', index, id, routing, source };
  const pipeline = cluster.pipeline(pipelineId);
  if (!pipeline) throw illegalArgument(`pipeline with id [${pipelineId}] does not exist`);
  let parsed: unknown;
  try { parsed = JSON.parse(Buffer.from(source.buffer, source.byteOffset, source.byteLength).toString('utf8')); } catch (e) {
    throw docError('DOC_PARSE', ['failed to parse the document for its ingest pipeline'], { cause: { code: 'DOC_JSON_PARSE', message: (e as Error).message, details: {} } });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw docError('DOC_PARSE', ['the document must be an object']);
  const doc = new IngestDocument(parsed as Record<string, unknown>, { _index: index, _type: type, _id: id, _routing: routing }, cluster.ctx.now());
  const out = runPipeline(pipeline, doc, (p) => cluster.pipeline(p));
  if (out.kind === 'dropped') return { kind: 'dropped' };
  if (out.kind === 'failed') throw out.error;
  const m = out.doc.meta;
  return {
    kind: 'write', index: String(m._index), id: m._id === undefined || m._id === null ? undefined : String(m._id),
    routing: m._routing === undefined || m._routing === null ? undefined : String(m._routing), source: Buffer.from(JSON.stringify(out.doc.source)),
  };
}

function hasPipelines(cluster: EsCluster): boolean {
  for (const _ in cluster.state.pipelines) return true;
  return false;
}

function defaultPipeline(cluster: EsCluster, index: string): string | undefined {
  try {
    const t = resolveWrite(cluster.state, index);
    return t.index?.settings['index.default_pipeline'] as string | undefined;
  } catch {
    return undefined;
  }
}

export function registerIngestRoutes(router: Router, cluster: EsCluster): void {
  router.add('PUT', '/_ingest/pipeline/:id', route(['master_timeout', 'timeout'], async (req, p) => {
    await cluster.putPipeline(p.id, bodyMap(req, true));
    return json(req, 200, { acknowledged: true });
  }));
  const get = route(['master_timeout'], (req, p) => {
    const ids = matching(cluster, p.id);
    if (p.id !== undefined && ids.length === 0) return json(req, 404, {});
    return json(req, 200, Object.fromEntries(ids.map((id) => [id, cluster.state.pipelines[id]])));
  });
  router.add('GET', '/_ingest/pipeline', get);
  router.add('GET', '/_ingest/pipeline/:id', get);
  router.add('DELETE', '/_ingest/pipeline/:id', route(['master_timeout', 'timeout'], async (req, p) => {
    const ids = matching(cluster, p.id);
    if (ids.length === 0) throw docError('NOT_FOUND', [`pipeline [${p.id}] is missing`]);
    await cluster.deletePipelines(ids);
    return json(req, 200, { acknowledged: true });
  }));
  const simulate = route(['verbose'], (req, p) => simulatePipeline(cluster, req, p));
  for (const path of ['/_ingest/pipeline/_simulate', '/_ingest/pipeline/:id/_simulate']) router.add(['GET', 'POST'], path, simulate);
}

function matching(cluster: EsCluster, expr: string | undefined): string[] {
  const ids = Object.keys(cluster.state.pipelines).sort();
  if (expr === undefined || expr === '*' || expr === '_all') return ids;
  const pats = expr.split(',');
  return ids.filter((id) => pats.some((pat) => simpleMatch(pat, id)));
}

function simulatePipeline(cluster: EsCluster, req: HttpRequest, p: Params): HttpResponse {
  const body = bodyMap(req, true)!;
  let pipeline: Pipeline;
  if (p.id !== undefined) {
    const found = cluster.pipeline(p.id);
    if (!found) throw illegalArgument(`pipeline [${p.id}] does not exist`);
    pipeline = found;
  } else {
    if (body.pipeline === undefined) throw docError('DOC_PARSE', ['[pipeline] required property is missing']);
    pipeline = compilePipeline('_simulate_pipeline', body.pipeline);
  }
  if (!Array.isArray(body.docs)) throw validationFailed(['must specify at least one document in [docs]']);
  const verbose = boolParam(req, 'verbose');
  const docs = body.docs.map((d: unknown) => {
    const o = (d ?? {}) as Record<string, unknown>;
    if (typeof o._source !== 'object' || o._source === null) throw docError('DOC_PARSE', ['[_source] required property is missing']);
    const doc = new IngestDocument(structuredClone(o._source) as Record<string, unknown>,
      { _index: o._index ?? '_index', _type: o._type ?? '_doc', _id: o._id ?? '_id', _routing: o._routing }, cluster.ctx.now());
    if (verbose) {
      // ES 6.8's SimulateDocumentVerboseResult: one entry per processor that ran, whatever the document's fate.
      const results: Record<string, unknown>[] = [];
      runPipeline(pipeline, doc, (id) => cluster.pipeline(id), (t) => results.push(processorResult(t)));
      return { processor_results: results };
    }
    const out = runPipeline(pipeline, doc, (id) => cluster.pipeline(id));
    const result = out.kind === 'failed' ? { error: errorBody(out.error).error }
      : out.kind === 'dropped' ? null
      : { doc: { ...metaOf(out.doc), _source: out.doc.source, _ingest: out.doc.ingest } };
    return result;
  });
  return json(req, 200, { docs });
}

function metaOf(doc: { meta: Record<string, unknown> }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['_index', '_type', '_id', '_routing', '_version'] as const) if (doc.meta[k] !== undefined && doc.meta[k] !== null) out[k] = doc.meta[k];
  return out;
}

/** `{tag?, error | ignored_error?, doc?}` as ES 6.8's SimulateProcessorResult prints it. */
function processorResult(t: ProcessorTrace): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (t.tag !== undefined) out.tag = t.tag;
  if (t.error && t.doc) out.ignored_error = { error: errorBody(t.error).error };
  else if (t.error) out.error = errorBody(t.error).error;
  if (t.doc) out.doc = { ...metaOf(t.doc), _source: t.doc.source, _ingest: t.doc.ingest };
  return out;
}
