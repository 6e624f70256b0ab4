/**
 * Ingest pipelines: a definition (`description`, `processors`, `on_failure`, `version`) compiled once into
 * processors with their `if` conditions (painless returning a boolean), `ignore_failure`, `tag` and
 * per-processor `on_failure`; and running them on a document as Elasticsearch 6.8 does: a failure runs the
 * nearest `on_failure` handlers with `_ingest.on_failure_message`/`_processor_type`/`_processor_tag` set,
 * else fails the document; a `drop` processor drops it.
 */
import { docError, illegalArgument } from '../doc-errors.ts';
import { EngineError, fromWire, toWire } from '../../errors.ts';
import { runScript, type ScriptSpec } from '../painless.ts';
import { parseScriptSpec } from '../update.ts';
import { IngestDocument } from './ingest-document.ts';
import { buildProcessor, ProcessorOptions, type ProcessorFn, type ProcessorResult, type ProcessorRuntime } from './processors.ts';

interface CompiledProcessor {
  type: string;
  tag: string | undefined;
  condition: ScriptSpec | null;
  ignoreFailure: boolean;
  onFailure: CompiledProcessor[];
  run: ProcessorFn;
}

export interface Pipeline { id: string; processors: CompiledProcessor[]; onFailure: CompiledProcessor[] }

/** Where stored pipelines are found (the `pipeline` processor, `default_pipeline`). */
export type PipelineLookup = (id: string) => Pipeline | undefined;

const MAX_NESTED_PIPELINES = 10;

/** Compiles a pipeline definition; throws ES's parse errors for a malformed one. */
export function compilePipeline(id: string, body: unknown): Pipeline {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw docError('DOC_PARSE', ['request body is required']);
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!['description', 'processors', 'on_failure', 'version'].includes(k)) throw docError('DOC_PARSE', [`[${k}] unknown field`]);
  if (b.processors === undefined) throw docError('DOC_PARSE', ['[processors] required property is missing'], { property_name: 'processors' });
  return { id, processors: compileList(b.processors, 'processors'), onFailure: b.on_failure === undefined ? [] : compileList(b.on_failure, 'on_failure') };
}

const RUNTIME_FOR_COMPILE: ProcessorRuntime = { runPipeline: () => undefined, parseScript: parseScriptSpec };

function compileList(v: unknown, what: string): CompiledProcessor[] {
  if (!Array.isArray(v)) throw docError('DOC_PARSE', [`[${what}] property isn't a list, but of type [${typeof v}]`], { property_name: what });
  return v.map((entry) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || Object.keys(entry).length !== 1) {
      throw docError('DOC_PARSE', [`[${what}] each processor must be an object with one processor type`]);
    }
    const [type, raw] = Object.entries(entry as Record<string, unknown>)[0];
    const o = (raw ?? {}) as Record<string, unknown>;
    const tag = typeof o.tag === 'string' ? o.tag : undefined;
    const options = new ProcessorOptions(type, tag, o);
    const run = buildProcessor(type, options, RUNTIME_FOR_COMPILE);
    const unknown = options.unknown();
    if (unknown.length) throw docError('DOC_PARSE', [`processor [${type}] doesn't support one or more provided configuration parameters ${JSON.stringify(unknown)}`], { processor_type: type });
    return {
      type, tag,
      condition: o.if === undefined ? null : parseScriptSpec(o.if),
      ignoreFailure: o.ignore_failure === true || o.ignore_failure === 'true',
      onFailure: o.on_failure === undefined ? [] : compileList(o.on_failure, 'on_failure'),
      run,
    };
  });
}

/** The outcome of running a pipeline on one document. */
export type IngestOutcome = { kind: 'ok'; doc: IngestDocument } | { kind: 'dropped' } | { kind: 'failed'; error: Error };

/** A copy of a document as one processor left it. */
export interface DocSnapshot { meta: Record<string, unknown>; source: Record<string, unknown>; ingest: Record<string, unknown> }

/**
 * What one processor did, for `_simulate?verbose` (ES 6.8's SimulateProcessorResult): the document after it,
 * its failure, or both when `ignore_failure` let the pipeline go on. Skipped processors (false `if`) and
 * `pipeline` processors themselves (their processors are reported instead) leave none.
 */
export interface ProcessorTrace { tag: string | undefined; doc: DocSnapshot | null; error: Error | null }

/** Runs `pipeline` on `doc` (mutated); `lookup` resolves `pipeline` processors; `trace` receives each processor's result. */
export function runPipeline(pipeline: Pipeline, doc: IngestDocument, lookup: PipelineLookup, trace: ((t: ProcessorTrace) => void) | null = null): IngestOutcome {
  const rt = runtime(lookup, 0, trace);
  try {
    const r = runList(pipeline.processors, pipeline.onFailure, doc, rt, trace);
    return r === 'drop' ? { kind: 'dropped' } : { kind: 'ok', doc };
  } catch (e) {
    return { kind: 'failed', error: e as Error };
  }
}

function runtime(lookup: PipelineLookup, depth: number, trace: ((t: ProcessorTrace) => void) | null): ProcessorRuntime {
  return {
    parseScript: parseScriptSpec,
    runPipeline(name, doc) {
      if (depth >= MAX_NESTED_PIPELINES) throw illegalArgument(`Cycle detected for pipeline: ${name}`);
      const p = lookup(name);
      if (!p) throw illegalArgument(`pipeline with id [${name}] does not exist`);
      return runList(p.processors, p.onFailure, doc, runtime(lookup, depth + 1, trace), trace);
    },
  };
}

function snapshot(doc: IngestDocument): DocSnapshot {
  return { meta: structuredClone(doc.meta), source: structuredClone(doc.source), ingest: structuredClone(doc.ingest) };
}

function runList(list: CompiledProcessor[], onFailure: CompiledProcessor[], doc: IngestDocument, rt: ProcessorRuntime,
  trace: ((t: ProcessorTrace) => void) | null): ProcessorResult {
  for (const p of list) {
    if (p.condition && !condition(p.condition, doc)) continue;
    try {
      const r = p.run(doc, rt);
      if (trace && p.type !== 'pipeline') trace({ tag: p.tag, doc: snapshot(doc), error: null });
      if (r === 'drop') return 'drop';
    } catch (e) {
      trace?.({ tag: p.tag, doc: p.ignoreFailure ? snapshot(doc) : null, error: e as Error });
      if (p.ignoreFailure) continue;
      const handlers = p.onFailure.length ? p.onFailure : onFailure;
      if (!handlers.length) throw withProcessor(e, p);
      doc.ingest.on_failure_message = (e as Error).message;
      doc.ingest.on_failure_processor_type = p.type;
      if (p.tag !== undefined) doc.ingest.on_failure_processor_tag = p.tag;
      const r = runList(handlers, [], doc, rt, trace);
      delete doc.ingest.on_failure_message; delete doc.ingest.on_failure_processor_type; delete doc.ingest.on_failure_processor_tag;
      if (r === 'drop') return 'drop';
      if (p.onFailure.length === 0) return; // the pipeline-level handlers end the pipeline
    }
  }
}

function condition(spec: ScriptSpec, doc: IngestDocument): boolean {
  const ctx = doc.scriptContext();
  try {
    const v = runScript(spec, ctx);
    if (typeof v !== 'boolean') throw illegalArgument(`condition [${spec.source}] must return a boolean value, got [${String(v)}]`);
    return v;
  } finally {
    doc.absorbScriptContext(ctx);
  }
}

/**
 * The processor's failure as its pipeline reports it (ES's CompoundProcessor.newCompoundProcessorException): a
 * DOC_INGEST_PROCESSOR error naming the processor in its `header`, with the processor's error as `cause`. One
 * that already names a processor (from a nested pipeline) passes unchanged. The message stays the processor's,
 * which is what `_ingest.on_failure_message` shows (ES takes the root cause's message).
 */
function withProcessor(e: unknown, p: CompiledProcessor): Error {
  const err = e instanceof EngineError ? e : fromWire(toWire(e));
  if (err.code === 'DOC_INGEST_PROCESSOR') return err;
  const header = { processor_type: p.type, ...(p.tag !== undefined ? { processor_tag: p.tag } : {}) };
  return docError('DOC_INGEST_PROCESSOR', [err.message], { header, cause: { code: err.code, message: err.message, details: err.details } });
}
