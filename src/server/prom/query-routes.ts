/**
 * `/api/v1/query`, `/api/v1/query_range`, `/api/v1/format_query`. The HTTP thread parses the query and
 * works out which series (and time ranges) it reads, fetches them from the shard workers through the
 * TSDB client, then hands query + data to a worker (`promql.eval`), which evaluates and encodes the
 * result; this thread only wraps the envelope and gzips when the client accepts it.
 */
import { constants as zlibConstants } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import type { Router } from '../router.ts';
import type { ServerContext, ServiceHooks } from '../context.ts';
import type { Summary } from '../self-metrics.ts';
import { loadConfig } from '../../engine/scrape/config.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import { durationMs } from '../flags.ts';
import { EngineError, InvalidArgumentError, QueryCanceledError, QueryTimeoutError, formatMessage } from '../../engine/errors.ts';
import { QueryPool } from '../pool.ts';
import { QueryGate, SharedSlot } from './query-gate.ts';
import { evaluateInHalves } from './range-split.ts';
import type { FetchedSeries, Matcher } from '../../engine/tsdb/api.ts';
import { parseExpr, prettyExpr, typeOf, documentedType, selectorRanges, jsonString } from '../../engine/promql/index.ts';
import type { Expr } from '../../engine/promql/index.ts';
import type { PromqlEvalArgs, PromqlEvalReply } from '../../workers/protocol.ts';
import { packSelect } from '../../engine/tsdb/packed-series.ts';
import type { PackedSelect } from '../../engine/tsdb/packed-series.ts';
import { outOfBand } from '../../engine/codec/msgpack.ts';
import { promErrorFrom, promSuccess } from './respond.ts';
import { gzipBody } from '../content-encoding.ts';
import { badParam, durationParam, formValues, timeParam } from './query-params.ts';

export { mergeSeries } from '../../engine/tsdb/packed-series.ts';

/**
 * What the query path needs from storage (implemented by `tsdb-client.ts`). `selectPacked` (every worker's
 * undecoded reply) is preferred: those replies go on to the evaluating worker without being decoded here.
 */
export interface SeriesClient {
  select(matchers: readonly Matcher[], mintMs: number, maxtMs: number): Promise<FetchedSeries[]>;
  selectPacked?(matchers: readonly Matcher[], mintMs: number, maxtMs: number, deadlineMs?: number, signal?: AbortSignal): Promise<PackedSelect[]>;
}

interface QueryLimits { lookbackMs: number; timeoutMs: number; maxSamples: number; subqueryStepMs: number; splitMinSteps: number }

/** What a query's evaluation answers: `json` the `data` object without its closing brace, maybe in pieces. */
interface Evaluated { json: Uint8Array | Uint8Array[]; evalMs: number; samples: number }

/**
 * Where queries are evaluated: the query threads (`QueryPool`), or an in-process stand-in in tests. `call`
 * calls `onThreadFree` once, when no thread holds the evaluation any more (possibly after it answered).
 */
export interface QueryEvaluator {
  call(op: 'promql.eval', args: PromqlEvalArgs, signal: AbortSignal, onThreadFree: () => void): Promise<PromqlEvalReply>;
  close(): Promise<void>;
  /** Threads evaluating at once (absent: one). */
  readonly threads?: number;
  /** Gets a thread ready for the first query (resolves once it is). */
  warm?(): Promise<void>;
}

export interface QueryDeps {
  /** Shared with `/-/ready`, which reports the node overloaded while queries wait for a slot. */
  gate?: QueryGate;
  evaluator?: QueryEvaluator;
}


/**
 * Registers the query endpoints. The returned hooks re-read `global.evaluation_interval` from `--config.file`
 * on start and reload: it is the step of subqueries written without one (`[5m:]`), as in Prometheus.
 */
export function registerQueryRoutes(router: Router, ctx: ServerContext, client: SeriesClient, deps: QueryDeps = {}): ServiceHooks {
  const limits = limitsOf(ctx);
  const gate = deps.gate ?? new QueryGate(ctx.flags['query.max-concurrency'] ?? 20);
  const evaluator = deps.evaluator ?? new QueryPool(QueryPool.threadsFor(gate.max));
  const slices = registerEngineMetrics(ctx, gate);
  const splits = ctx.metrics.counter('tessera_engine_split_range_queries_total', 'Range queries evaluated as two halves of their steps on two query threads at once.', []);
  /** Queries waiting for a slot or running: cancelled at shutdown. */
  const active = new Set<QueryControl>();
  /** Waits for a slot, fetches the selectors' data, evaluates on a query thread; cut at the deadline. */
  const execute = async (req: HttpRequest, expr: Expr, query: string, kind: 'instant' | 'range', startMs: number,
    endMs: number, stepMs: number, timeoutMs: number): Promise<{ reply: Evaluated; started: number; prepared: number }> => {
    const deadlineMs = Date.now() + timeoutMs;
    const q = new QueryControl(req.signal, deadlineMs);
    active.add(q);
    try {
      const queued = performance.now();
      // A query holds one slot however many threads evaluate it (it is one query for --query.max-concurrency).
      // Each evaluation holds it too until its thread is free, which can be after the answer: a cancelled
      // query is answered before its thread dropped or stopped it.
      const slot = new SharedSlot(await gate.acquire(q.signal));
      try {
        q.phase = 'preparation';
        const started = performance.now();
        slices.observe(['queue_time'], (started - queued) / 1000);
        const whole = { startMs, endMs, atStartMs: startMs, atEndMs: endMs, maxSamples: limits.maxSamples };
        if (kind === 'range' && worthSplitting(startMs, endMs, stepMs)) {
          const split = await evaluateInHalves(startMs, endMs, stepMs, q.signal, deadlineMs, async (s, e, signal) => {
            // Half the sample limit each: when both halves keep to it, the whole query keeps to the limit too
            // (the halves count at least what it counts), so it would not have failed unsplit.
            const args = await prepare(client, expr, query, kind, { ...whole, startMs: s, endMs: e, maxSamples: Math.floor(limits.maxSamples / 2) }, stepMs, deadlineMs, limits, signal);
            const prepared = performance.now();
            q.phase = 'expression evaluation';
            return { reply: await evaluator.call('promql.eval', args, signal, slot.hold()), prepared };
          });
          if (split !== null) {
            splits.inc();
            slices.observe(['prepare_time'], (split.prepared - started) / 1000);
            slices.observe(['inner_eval'], (performance.now() - split.prepared) / 1000);
            return { reply: split, started, prepared: split.prepared };
          }
        }
        q.phase = 'preparation';
        const args = await prepare(client, expr, query, kind, whole, stepMs, deadlineMs, limits, q.signal);
        const prepared = performance.now();
        slices.observe(['prepare_time'], (prepared - started) / 1000);
        q.phase = 'expression evaluation';
        const reply = await evaluator.call('promql.eval', args, q.signal, slot.hold());
        slices.observe(['inner_eval'], (performance.now() - prepared) / 1000);
        return { reply, started, prepared };
      } finally { slot.letGo(); }
    } finally { q.dispose(); active.delete(q); }
  };
  /**
   * Splits a range query of at least `--query.split-min-steps` steps when two threads can take its halves and
   * no other query runs or waits: under concurrency the other queries keep the threads busy, and splitting
   * would only add the second half's fetch and hop.
   */
  const worthSplitting = (startMs: number, endMs: number, stepMs: number): boolean =>
    limits.splitMinSteps > 0 && Math.floor((endMs - startMs) / stepMs) + 1 >= Math.max(2, limits.splitMinSteps) &&
    (evaluator.threads ?? 1) >= 2 && gate.running === 1 && gate.waiting === 0;
  const readInterval = async (): Promise<void> => {
    const file = ctx.flags['config.file'];
    if (file === '') return;
    try {
      limits.subqueryStepMs = loadConfig(await readFile(file, 'utf8'), file).global.evaluationIntervalMs;
    } catch (e) {
      ctx.log.warn('query: keeping the previous evaluation interval; config not readable', { err: (e as Error).message });
    }
  };
  const run = (req: HttpRequest, f: () => Promise<HttpResponse>): Promise<HttpResponse> =>
    f().catch((err) => promErrorFrom(err)).then((r) => maybeGzip(req, r));

  router.add(['GET', 'POST'], '/api/v1/query', (req) => run(req, async () => {
    const form = formValues(req);
    const t = timeParam(form, 'time', ctx.now(), true);
    const timeout = requestTimeout(form, limits);
    const query = form.get('query') ?? '';
    const expr = parseQuery(query, true);
    const { reply, started, prepared } = await execute(req, expr, query, 'instant', t, t, 0, timeout);
    return wrap(reply.json, form.get('stats') ? statsJson(started, prepared, reply.evalMs, reply.samples) : '');
  }));

  router.add(['GET', 'POST'], '/api/v1/query_range', (req) => run(req, async () => {
    const form = formValues(req);
    const start = timeParam(form, 'start', 0, false);
    const end = timeParam(form, 'end', 0, false);
    if (end < start) throw badParam('end', 'end timestamp must not be before start time');
    const step = durationParam(form, 'step') ?? failStep();
    if (step <= 0) throw badParam('step', 'zero or negative query resolution step widths are not accepted. Try a positive integer');
    if (Math.floor((end - start) / step) > 11000) {
      throw new InvalidArgumentError('INVALID_ARGUMENT', 'exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)');
    }
    const timeout = requestTimeout(form, limits);
    const query = form.get('query') ?? '';
    const expr = parseQuery(query, false);
    const type = typeOf(expr);
    if (type !== 'vector' && type !== 'scalar') {
      throw new InvalidArgumentError('INVALID_ARGUMENT', `invalid expression type ${JSON.stringify(documentedType(type))} for range query, must be Scalar or instant Vector`);
    }
    const { reply, started, prepared } = await execute(req, expr, query, 'range', start, end, Math.round(step), timeout);
    return wrap(reply.json, form.get('stats') ? statsJson(started, prepared, reply.evalMs, reply.samples) : '');
  }));

  // Exemplars are not stored (no exemplar ingestion), so a valid request always has none, as a Prometheus
  // without exemplar storage answers; parameters are validated the same way.
  router.add(['GET', 'POST'], '/api/v1/query_exemplars', (req) => run(req, async () => {
    const form = formValues(req);
    const start = timeParam(form, 'start', -9223372036854, true);
    const end = timeParam(form, 'end', 9223372036854, true);
    if (end < start) throw new InvalidArgumentError('INVALID_ARGUMENT', 'end timestamp must not be before start timestamp');
    const expr = parseQuery(form.get('query') ?? '', false);
    // Without selectors Prometheus returns no result at all, which its API writes as an empty 204.
    if (selectorRanges(expr, start, end, { lookbackMs: 0, defaultSubqueryStepMs: limits.subqueryStepMs }).length === 0) return { status: 204 };
    return promSuccess([]);
  }));

  router.add(['GET', 'POST'], '/api/v1/format_query', (req) => run(req, async () => {
    const expr = parseQuery(formValues(req).get('query') ?? '', true);
    // Go's JSON encoder escapes <, > and & (`x \u003e bool y`); the envelope helper would not.
    return { status: 200, headers: { 'Content-Type': 'application/json' }, body: `{"status":"success","data":${jsonString(prettyExpr(expr))}}` };
  }));
  // At shutdown running queries are cancelled (answered 503 canceled) rather than waited for, as Prometheus exits.
  // The first query thread loads while the rest of the node starts; the node is ready once it has.
  const warmed = evaluator.warm?.() ?? Promise.resolve();
  return {
    start: async () => { await readInterval(); await warmed; }, reload: readInterval,
    stopping: () => { for (const q of active) q.cancel(); }, stop: () => evaluator.close(),
  };
}

/**
 * One query's cancellation: `signal` aborts when the client goes away or the node shuts down (canceled) or at
 * the deadline (timed out), naming the phase the query was in as Prometheus does ("query timed out in query queue").
 */
class QueryControl {
  phase = 'query queue';
  private readonly ac = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onClientGone: () => void;

  constructor(private readonly client: AbortSignal | undefined, deadlineMs: number) {
    const wait = Math.max(0, deadlineMs - Date.now());
    this.timer = setTimeout(() => this.timeout(), wait);
    this.onClientGone = () => this.cancel();
    if (client?.aborted) this.onClientGone();
    else client?.addEventListener('abort', this.onClientGone, { once: true });
  }

  get signal(): AbortSignal { return this.ac.signal; }

  /** Stops the query as canceled (client gone, node shutting down). */
  cancel(): void {
    if (!this.ac.signal.aborted) this.ac.abort(new QueryCanceledError('QUERY_CANCELED', formatMessage('QUERY_CANCELED', [this.phase])));
  }

  private timeout(): void {
    this.ac.abort(new QueryTimeoutError('QUERY_TIMEOUT', formatMessage('QUERY_TIMEOUT', [this.phase])));
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.client?.removeEventListener('abort', this.onClientGone);
  }
}

function limitsOf(ctx: ServerContext): QueryLimits {
  return {
    lookbackMs: durationMs(ctx.flags['query.lookback-delta']),
    timeoutMs: durationMs(ctx.flags['query.timeout']),
    maxSamples: ctx.flags['query.max-samples'],
    subqueryStepMs: 60_000,
    // Stand-in contexts of tests may leave it out: never split there.
    splitMinSteps: ctx.flags['query.split-min-steps'] ?? 0,
  };
}

function failStep(): never { throw badParam('step', 'cannot parse "" to a valid duration'); }

function requestTimeout(form: URLSearchParams, limits: QueryLimits): number {
  const to = form.get('timeout');
  if (to === null || to === '') return limits.timeoutMs;
  const d = durationParam(form, 'timeout')!;
  return Math.min(d, limits.timeoutMs);
}

function parseQuery(query: string, prefixed: boolean): Expr {
  try {
    return parseExpr(query);
  } catch (err) {
    if (prefixed && err instanceof EngineError) throw badParam('query', err.message);
    throw err;
  }
}

/**
 * Fetches every selector's series over its time range. The replies are forwarded as they came (their typed
 * arrays transferred on to the evaluating worker), which merges them per label set.
 */
async function prepare(client: SeriesClient, expr: Expr, query: string, kind: 'instant' | 'range', range: EvalRange,
  stepMs: number, deadlineMs: number, limits: QueryLimits, signal: AbortSignal): Promise<PromqlEvalArgs> {
  const { startMs, endMs, atStartMs, atEndMs, maxSamples } = range;
  const ranges = selectorRanges(expr, startMs, endMs, { lookbackMs: limits.lookbackMs, defaultSubqueryStepMs: limits.subqueryStepMs, atStartMs, atEndMs });
  const fetched = await withDeadline(Promise.all(ranges.map((r) => fetchPacked(client, r.matchers, r.mintMs, r.maxtMs, deadlineMs, signal))), deadlineMs);
  return {
    query, kind, startMs, endMs, stepMs, deadlineMs, lookbackMs: limits.lookbackMs, maxSamples, atStartMs, atEndMs,
    defaultSubqueryStepMs: limits.subqueryStepMs, selected: fetched.map((replies) => replies.map(forward)),
  };
}

/** The steps one evaluation covers, with the whole query's start and end (`@ start()`, `@ end()`) and its sample limit. */
interface EvalRange { startMs: number; endMs: number; atStartMs: number; atEndMs: number; maxSamples: number }

async function fetchPacked(client: SeriesClient, ms: readonly Matcher[], mintMs: number, maxtMs: number, deadlineMs: number, signal: AbortSignal): Promise<PackedSelect[]> {
  // The workers get the deadline and the query's cancellation too, so they stop a select nobody waits for.
  if (client.selectPacked) return client.selectPacked(ms, mintMs, maxtMs, deadlineMs, signal);
  return [packSelect(await client.select(ms, mintMs, maxtMs), true, mintMs, maxtMs)];
}

/** Marks a reply's arrays for transfer to the evaluating worker (this thread does not read them again). */
function forward(p: PackedSelect): PackedSelect {
  return { ...p, refs: outOfBand(p.refs), lOff: outOfBand(p.lOff), cOff: outOfBand(p.cOff), bStart: outOfBand(p.bStart), bEnd: outOfBand(p.bEnd), data: outOfBand(p.data) };
}

function withDeadline<T>(p: Promise<T>, deadlineMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EngineError('PROMQL_EXECUTION', 'expanding series: context deadline exceeded')), Math.max(0, deadlineMs - Date.now()));
  });
  return Promise.race([p, expired]).finally(() => clearTimeout(timer));
}

/**
 * Prometheus's `stats` object with our phases: preparation is fetching the selectors' data from the shards,
 * inner evaluation is the worker's evaluation and encoding, queueing is the hop to and from that worker.
 */
function statsJson(started: number, prepared: number, evalMs: number, samples: number): string {
  const now = performance.now();
  const s = (ms: number): number => Math.max(0, ms) / 1000;
  const total = s(now - started), prep = s(prepared - started), inner = s(evalMs), queue = s(now - prepared - evalMs);
  return `,"stats":{"timings":{"evalTotalTime":${total},"resultSortTime":0,"queryPreparationTime":${prep},"innerEvalTime":${inner},"execQueueTime":${queue},"execTotalTime":${total}},"samples":{"totalQueryableSamples":${samples},"peakSamples":${samples}}}`;
}

const HEAD = Buffer.from('{"status":"success","data":');

function wrap(dataOpen: Uint8Array | Uint8Array[], stats: string): HttpResponse {
  const tail = Buffer.from(`${stats}}}`);
  // Left in pieces: the HTTP layer writes (or gzips) them in order, and joins only a small answer.
  const pieces = Array.isArray(dataOpen) ? [HEAD, ...dataOpen, tail] : [HEAD, dataOpen, tail];
  return { status: 200, headers: { 'Content-Type': 'application/json' }, body: pieces };
}

async function maybeGzip(req: HttpRequest, r: HttpResponse): Promise<HttpResponse> {
  const ae = req.headers['accept-encoding'] ?? '';
  if (!/\bgzip\b/.test(ae) || r.body === undefined) return r;
  // Fastest level: query results are large and mostly digits, so level 1 already shrinks them ~5x at a
  // fraction of the default level's CPU time (which dominated long range queries).
  const body = await gzipBody(r.body, zlibConstants.Z_BEST_SPEED);
  return { ...r, headers: { ...r.headers, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' }, body };
}

/** `prometheus_engine_*`: queries running, the concurrency limit, and query time by phase (Prometheus's slices). */
function registerEngineMetrics(ctx: ServerContext, gate: QueryGate): Summary {
  ctx.metrics.gauge('prometheus_engine_queries', 'The current number of queries being executed or waiting.', [], () => [[[], gate.running + gate.waiting]]);
  ctx.metrics.gauge('prometheus_engine_queries_concurrent_max', 'The max number of concurrent queries.', [], () => [[[], gate.max]]);
  ctx.metrics.gauge('prometheus_engine_query_log_enabled', 'State of the query log.', [], () => [[[], 0]]);
  const slices = ctx.metrics.summary('prometheus_engine_query_duration_seconds', 'Query timings', ['slice']);
  // Shown before the first query, as Prometheus's are. Its fourth slice, result_sort, is not: a range query's
  // result is sorted as part of its evaluation here, so there is no separate time to report.
  for (const slice of ['inner_eval', 'prepare_time', 'queue_time']) slices.seriesOf([slice]);
  return slices;
}
