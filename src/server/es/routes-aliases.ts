/** Alias and template endpoints. */
import { applyAliasActions } from '../../engine/documents/aliases.ts';
import { simpleMatch, type ClusterState } from '../../engine/documents/cluster-state.ts';
import { docError, illegalArgument } from '../../engine/documents/doc-errors.ts';
import { validateAliasName } from '../../engine/documents/names.ts';
import { parseTemplate } from '../../engine/documents/templates.ts';
import type { Router } from '../router.ts';
import type { EsCluster } from './cluster.ts';
import { bodyMap, exists, route } from './handler.ts';
import { json } from './json.ts';
import { boolParam } from './params.ts';
import { readOpts } from './routes-indices.ts';
import { renderAlias, renderTemplate } from './render.ts';

const ALIAS_PARAMS = ['timeout', 'master_timeout'];
const GET_ALIAS_PARAMS = ['local', 'ignore_unavailable', 'allow_no_indices', 'expand_wildcards'];

export function registerAliasRoutes(router: Router, cluster: EsCluster): void {
  router.add('POST', '/_aliases', route(ALIAS_PARAMS, async (req) => {
    const body = bodyMap(req, true);
    const removed = await cluster.mutate((s) => {
      const next = applyAliasActions(s, body);
      return { state: next, value: Object.values(s.indices).filter((m) => !next.indices[m.name]) };
    });
    await cluster.dropShards(removed);
    return json(req, 200, { acknowledged: true });
  }));

  const putAlias = route(ALIAS_PARAMS, async (req, p) => {
    const body = bodyMap(req) ?? {};
    const targets = cluster.resolveForRead(p.index, {}).map((r) => r.name);
    const names = p.name.split(',');
    for (const n of names) validateAliasName(n);
    await cluster.mutate((s) => ({ state: applyAliasActions(s, { actions: [{ add: { indices: targets, aliases: names, ...body } }] }) }));
    return json(req, 200, { acknowledged: true });
  });
  const deleteAlias = route(ALIAS_PARAMS, async (req, p) => {
    const targets = cluster.resolveForRead(p.index, {}).map((r) => r.name);
    const names = p.name.split(',');
    await cluster.mutate((s) => {
      const found = targets.some((t) => Object.keys(s.indices[t].aliases).some((a) => names.some((n) => n === '_all' || simpleMatch(n, a))));
      if (!found) throw docError('DOC_ALIASES_NOT_FOUND', [names.join(',')], { 'resource.type': 'aliases', 'resource.id': names.join(',') });
      const indices = { ...s.indices };
      for (const t of targets) {
        const aliases = { ...indices[t].aliases };
        for (const a of Object.keys(aliases)) if (names.some((n) => n === '_all' || simpleMatch(n, a))) delete aliases[a];
        indices[t] = { ...indices[t], aliases };
      }
      return { state: { ...s, version: s.version + 1, indices } };
    });
    return json(req, 200, { acknowledged: true });
  });
  for (const word of ['_alias', '_aliases']) {
    router.add(['PUT', 'POST'], `/:index/${word}/:name`, putAlias);
    router.add('DELETE', `/:index/${word}/:name`, deleteAlias);
  }
  router.add(['PUT', 'POST'], '/_alias/:name', route(ALIAS_PARAMS, (req) => { throw illegalArgument(`request [${req.path}] requires an index`); }));

  const getAlias = route(GET_ALIAS_PARAMS, (req, p) => {
    const metas = cluster.resolveForRead(p.index, readOpts(req)).map((r) => cluster.state.indices[r.name]);
    const names = p.name ? p.name.split(',') : null;
    const out: Record<string, unknown> = {};
    const seen = new Set<string>();
    for (const m of metas) {
      const aliases: Record<string, unknown> = {};
      for (const a of Object.keys(m.aliases).sort()) {
        if (names && !names.some((n) => n === '_all' || simpleMatch(n, a))) continue;
        aliases[a] = renderAlias(m.aliases[a]);
        seen.add(a);
      }
      if (!names || Object.keys(aliases).length) out[m.name] = { aliases };
    }
    const missing = names ? names.filter((n) => n !== '_all' && !n.includes('*') && !seen.has(n)) : [];
    if (req.method === 'HEAD') return exists(missing.length === 0 && (!names || seen.size > 0));
    if (missing.length) {
      const msg = missing.length === 1 ? `alias [${missing[0]}] missing` : `aliases [${missing.join(',')}] missing`;
      return json(req, 404, { error: msg, status: 404, ...out });
    }
    return json(req, 200, out);
  });
  router.add(['GET', 'HEAD'], '/_alias', getAlias);
  router.add(['GET', 'HEAD'], '/_aliases', getAlias);
  router.add(['GET', 'HEAD'], '/_alias/:name', getAlias);
  router.add(['GET', 'HEAD'], '/:index/_alias', getAlias);
  router.add(['GET', 'HEAD'], '/:index/_aliases', getAlias);
  router.add(['GET', 'HEAD'], '/:index/_alias/:name', getAlias);

  registerTemplateRoutes(router, cluster);
}

function templatesMatching(s: ClusterState, expr: string | undefined): string[] {
  const names = Object.keys(s.templates).sort();
  if (!expr) return names;
  const pats = expr.split(',');
  return names.filter((n) => pats.some((p) => simpleMatch(p, n)));
}

function registerTemplateRoutes(router: Router, cluster: EsCluster): void {
  router.add(['PUT', 'POST'], '/_template/:name', route(['create', 'order', 'timeout', 'master_timeout', 'flat_settings', 'include_type_name'], async (req, p) => {
    const body = bodyMap(req, true)!;
    if (req.query.get('order') !== null && body.order === undefined) body.order = Number(req.query.get('order'));
    const t = parseTemplate(p.name, body);
    const create = boolParam(req, 'create');
    await cluster.mutate((s) => {
      if (create && s.templates[p.name]) throw illegalArgument(`index_template [${p.name}] already exists`);
      return { state: { ...s, version: s.version + 1, templates: { ...s.templates, [p.name]: t } } };
    });
    return json(req, 200, { acknowledged: true });
  }));
  const get = route(['flat_settings', 'local', 'master_timeout', 'include_type_name'], (req, p) => {
    const names = templatesMatching(cluster.state, p.name);
    if (req.method === 'HEAD') return exists(names.length > 0);
    const out: Record<string, unknown> = {};
    for (const n of names) out[n] = renderTemplate(cluster.state.templates[n], boolParam(req, 'flat_settings'));
    return json(req, p.name && names.length === 0 ? 404 : 200, out);
  });
  router.add(['GET', 'HEAD'], '/_template', get);
  router.add(['GET', 'HEAD'], '/_template/:name', get);
  router.add('DELETE', '/_template/:name', route(['timeout', 'master_timeout'], async (req, p) => {
    await cluster.mutate((s) => {
      const names = templatesMatching(s, p.name);
      if (names.length === 0) throw docError('DOC_TEMPLATE_MISSING', [p.name]);
      const templates = { ...s.templates };
      for (const n of names) delete templates[n];
      return { state: { ...s, version: s.version + 1, templates } };
    });
    return json(req, 200, { acknowledged: true });
  }));
}
