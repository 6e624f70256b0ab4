/**
 * Index templates: validation of `PUT /_template/{name}` bodies and the merge applied at index creation
 * (matching templates in ascending `order`, higher order wins, mappings deep-merged, `{index}` replaced in
 * alias names).
 */
import type { MappingJson } from '../search/api.ts';
import type { AliasMeta, ClusterState, TemplateMeta } from './cluster-state.ts';
import { simpleMatch } from './cluster-state.ts';
import { docError, illegalArgument, validationFailed } from './doc-errors.ts';
import { parseAliasesObject } from './aliases.ts';
import { flattenSettings, validateSettings, type FlatSettings } from './settings.ts';
import { setKey } from './source.ts';

const TEMPLATE_KEYS = new Set(['index_patterns', 'template', 'order', 'version', 'settings', 'mappings', 'aliases']);
const BAD_PATTERN_CHARS = /[\\/?"<>| ,#]/;

function invalid(name: string, why: string): never {
  throw docError('DOC_INVALID_TEMPLATE', [name, why]);
}

/** Validates and normalises a template body. */
export function parseTemplate(name: string, body: unknown): TemplateMeta {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw validationFailed(['index patterns are missing']);
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) {
    if (!TEMPLATE_KEYS.has(k)) throw illegalArgument(`unknown key [${k}] in the template `);
  }
  const raw = b.index_patterns ?? b.template;
  const patterns = raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
  if (patterns.length === 0) throw validationFailed(['index patterns are missing']);
  if (/[ ,#]/.test(name)) invalid(name, 'name must not contain a space, \',\' or \'#\'');
  if (name.startsWith('_')) invalid(name, 'name must not start with \'_\'');
  if (name.toLowerCase() !== name) invalid(name, 'name must be lower cased');
  for (const p of patterns) {
    if (BAD_PATTERN_CHARS.test(p)) invalid(name, `index_pattern [${p}] must not contain the following characters [ , ", \\, <, |, ,, >, /, ?]`);
    if (p.startsWith('_')) invalid(name, `index_pattern [${p}] must not start with '_'`);
  }
  const settings = flattenSettings(b.settings);
  validateSettings(settings);
  const mappings: Record<string, MappingJson> = {};
  if (b.mappings != null) {
    if (typeof b.mappings !== 'object' || Array.isArray(b.mappings)) throw illegalArgument('mappings must be an object');
    for (const [t, m] of Object.entries(b.mappings as Record<string, unknown>)) mappings[t] = m as MappingJson;
  }
  const out: TemplateMeta = {
    name,
    order: b.order === undefined ? 0 : intOf(b.order, 'order'),
    index_patterns: patterns,
    settings,
    mappings,
    aliases: parseAliasesObject(b.aliases),
  };
  if (b.version !== undefined && b.version !== null) out.version = intOf(b.version, 'version');
  return out;
}

function intOf(v: unknown, field: string): number {
  const n = Number(v);
  if (!Number.isInteger(n)) throw illegalArgument(`[${field}] must be an integer`);
  return n;
}

/** Templates whose patterns match `index`, lowest order first (so later ones override). */
export function matchingTemplates(state: ClusterState, index: string): TemplateMeta[] {
  return Object.values(state.templates)
    .filter((t) => t.index_patterns.some((p) => simpleMatch(p, index)))
    .sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : 1));
}

/** Deep merge of plain JSON objects (`b` wins; arrays and scalars replaced). */
export function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(a)) setKey(out, k, a[k]);
  for (const [k, v] of Object.entries(b)) {
    const cur = Object.prototype.hasOwnProperty.call(out, k) ? out[k] : undefined;
    setKey(out, k, isObj(cur) && isObj(v) ? deepMerge(cur, v) : v);
  }
  return out;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface TemplateResult {
  settings: FlatSettings;
  /** Type name → mapping, merged over all templates. */
  mappings: Record<string, MappingJson>;
  aliases: Record<string, AliasMeta>;
}

/** Merges the matching templates for a new index named `index`. */
export function applyTemplates(templates: TemplateMeta[], index: string): TemplateResult {
  let settings: FlatSettings = {};
  let mappings: Record<string, unknown> = {};
  const aliases: Record<string, AliasMeta> = {};
  for (const t of templates) {
    settings = { ...settings, ...t.settings };
    mappings = deepMerge(mappings, t.mappings as Record<string, unknown>);
    for (const [a, def] of Object.entries(t.aliases)) aliases[a.split('{index}').join(index)] = def;
  }
  return { settings, mappings: mappings as Record<string, MappingJson>, aliases };
}
