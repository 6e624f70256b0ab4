/**
 * `_rollover`: when an alias's write index meets a condition (`max_docs`, `max_age`, `max_size`; none means
 * always), a new index is created (named in the path, or the old name with its trailing number incremented and
 * zero-padded to six digits; date math allowed) and the alias moves to it in the same metadata change, as
 * Elasticsearch 6.8 does. `dry_run` evaluates without changing anything.
 */
import { applyAliasActions } from '../../engine/documents/aliases.ts';
import { resolveDateMathName } from '../../engine/documents/date-math-names.ts';
import { illegalArgument } from '../../engine/documents/doc-errors.ts';
import { validateNewIndexName } from '../../engine/documents/index-create.ts';
import { indicesOfAlias, type IndexMeta } from '../../engine/documents/cluster-state.ts';
import { parseTimeValue } from '../../engine/documents/settings.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Params, Router } from '../router.ts';
import type { EsCluster } from './cluster.ts';
import { bodyMap, route } from './handler.ts';
import { json } from './json.ts';
import { boolParam } from './params.ts';
import { typelessParam } from './routes-indices.ts';

const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4, pb: 1024 ** 5 };

export function registerRolloverRoutes(router: Router, cluster: EsCluster): void {
  const rollover = route(['dry_run', 'timeout', 'master_timeout', 'wait_for_active_shards', 'include_type_name'], (req, p) => roll(cluster, req, p));
  router.add('POST', '/:index/_rollover', rollover);
  router.add('POST', '/:index/_rollover/:new_index', rollover);
}

async function roll(cluster: EsCluster, req: HttpRequest, p: Params): Promise<HttpResponse> {
  const body = bodyMap(req) ?? {};
  for (const k of Object.keys(body)) if (!['conditions', 'settings', 'mappings', 'aliases'].includes(k)) throw illegalArgument(`unknown field [${k}]`);
  const alias = p.index;
  if (cluster.state.indices[alias]) throw illegalArgument(`source alias is a concrete index`);
  const targets = indicesOfAlias(cluster.state, alias);
  if (targets.length === 0) throw illegalArgument(`source alias does not exist`);
  const writeIndex = targets.length === 1 ? targets[0] : targets.find((t) => cluster.state.indices[t].aliases[alias].is_write_index === true);
  if (!writeIndex) throw illegalArgument(`source alias [${alias}] does not point to a write index`);
  const old = cluster.state.indices[writeIndex];
  const newName = p.new_index !== undefined ? resolveDateMathName(p.new_index, cluster.ctx.now()) : nextName(old.name);
  validateNewIndexName(cluster.state, newName);

  const conditions = parseConditions(body.conditions);
  const results = await evaluate(cluster, old, conditions);
  const met = conditions.length === 0 || Object.values(results).some(Boolean);
  const dryRun = boolParam(req, 'dry_run');
  let rolled = false;
  if (met && !dryRun) {
    const createBody: Record<string, unknown> = {};
    for (const k of ['settings', 'mappings', 'aliases'] as const) if (body[k] !== undefined) createBody[k] = body[k];
    await cluster.createIndex(newName, Object.keys(createBody).length ? createBody : null, typelessParam(req));
    const explicitWrite = old.aliases[alias].is_write_index === true;
    const actions = explicitWrite
      ? [{ add: { index: old.name, alias, is_write_index: false } }, { add: { index: newName, alias, is_write_index: true } }]
      : [{ remove: { index: old.name, alias } }, { add: { index: newName, alias } }];
    await cluster.mutate((s) => ({ state: applyAliasActions(s, { actions }) }));
    rolled = true;
  }
  return json(req, 200, { acknowledged: rolled, shards_acknowledged: rolled, old_index: old.name, new_index: newName, rolled_over: rolled, dry_run: dryRun, conditions: results });
}

/** `logs-000001` → `logs-000002`; ES requires the old name to end in `-` and a number. */
function nextName(old: string): string {
  const m = /^(.*-)(\d+)$/.exec(old);
  if (!m) throw illegalArgument(`index name [${old}] does not match pattern '^.*-\\d+$'`);
  return m[1] + String(Number(m[2]) + 1).padStart(6, '0');
}

interface Condition { name: 'max_docs' | 'max_age' | 'max_size'; raw: string; value: number }

function parseConditions(v: unknown): Condition[] {
  if (v === undefined) return [];
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw illegalArgument('[conditions] must be an object');
  return Object.entries(v as Record<string, unknown>).map(([name, raw]) => {
    const s = String(raw);
    if (name === 'max_docs') return { name, raw: s, value: Number(s) };
    if (name === 'max_age') {
      const ms = parseTimeValue(s, 'max_age');
      if (ms === null) throw illegalArgument(`failed to parse setting [max_age] with value [${s}] as a time value`);
      return { name, raw: s, value: ms };
    }
    if (name === 'max_size') {
      const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(s);
      if (!m || SIZE_UNITS[(m[2] || 'b').toLowerCase()] === undefined) throw illegalArgument(`failed to parse setting [max_size] with value [${s}] as a size in bytes`);
      return { name, raw: s, value: Number(m[1]) * SIZE_UNITS[(m[2] || 'b').toLowerCase()] };
    }
    throw illegalArgument(`unknown condition [${name}]`);
  });
}

/** Each condition's outcome, keyed as ES prints them (`[max_docs: 1000]`). */
async function evaluate(cluster: EsCluster, old: IndexMeta, conditions: Condition[]): Promise<Record<string, boolean>> {
  if (conditions.length === 0) return {};
  const stats = (await cluster.stats([old])).get(old.name) ?? [];
  const docs = stats.reduce((a, s) => a + s.rootDocs, 0);
  const bytes = stats.reduce((a, s) => a + s.storeBytes, 0);
  const age = cluster.ctx.now() - old.creationDate;
  const out: Record<string, boolean> = {};
  for (const c of conditions) {
    const actual = c.name === 'max_docs' ? docs : c.name === 'max_age' ? age : bytes;
    out[`[${c.name}: ${c.raw}]`] = actual >= c.value;
  }
  return out;
}
