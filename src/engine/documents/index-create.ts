/**
 * Building a new index's metadata from a create-index body (or an auto-create), after templates: name
 * checks, settings defaults and validation, the one mapping type, aliases.
 */
import type { MappingJson } from '../search/api.ts';
import type { AliasMeta, ClusterState, IndexMeta } from './cluster-state.ts';
import { customAnalyzers, isAlias } from './cluster-state.ts';
import { docError, illegalArgument, mapperParsing } from './doc-errors.ts';
import { EngineError } from '../errors.ts';
import { parseAliasesObject } from './aliases.ts';
import { countFields, validateRootMapping } from './mapping.ts';
import { expandDottedFields } from './mapping-dots.ts';
import { newIndexUuid, validateAliasName, validateIndexName, validateTypeName } from './names.ts';
import { DEFAULT_REPLICAS, DEFAULT_SHARDS, VERSION_CREATED, flattenSettings, validateSettings, type FlatSettings } from './settings.ts';
import { applyTemplates, deepMerge, matchingTemplates } from './templates.ts';

export interface CreateOptions {
  /** `include_type_name=false`: `mappings` is the type body itself (type `_doc`). */
  typeless?: boolean;
  /** For auto-create: the type named in the write's URL. */
  now: number;
}

const CREATE_KEYS = new Set(['settings', 'mappings', 'aliases']);
const DEFAULT_MAPPING = '_default_';

/**
 * Throws what ES's MetaDataCreateIndexService.validateIndexName throws for a name that cannot be given to a new
 * index: `invalid_index_name_exception`, or `resource_already_exists_exception` when an index has it. Create-index
 * and rollover (before its conditions are evaluated, dry run or not) both check this.
 */
export function validateNewIndexName(state: ClusterState, name: string): void {
  validateIndexName(name);
  const existing = state.indices[name];
  if (existing) throw docError('DOC_INDEX_EXISTS', [name, existing.uuid], { index_uuid: existing.uuid, index: name });
  if (isAlias(state, name)) throw docError('DOC_INVALID_INDEX_NAME', [name, 'already exists as alias'], { index_uuid: '_na_', index: name });
}

/** Returns the metadata of a new index; throws the ES errors of create-index. */
export function buildIndex(state: ClusterState, name: string, body: Record<string, unknown> | null, opts: CreateOptions): IndexMeta {
  validateNewIndexName(state, name);
  const b = body ?? {};
  for (const k of Object.keys(b)) {
    // ES 6 treats other top-level keys as settings (a body of bare settings is accepted).
    if (!CREATE_KEYS.has(k)) return buildIndex(state, name, { settings: b }, opts);
  }
  const tpl = applyTemplates(matchingTemplates(state, name), name);
  const requested = flattenSettings(b.settings);
  validateSettings(requested);
  const settings: FlatSettings = { ...tpl.settings, ...requested };
  validateSettings(settings);
  const uuid = newIndexUuid();
  const finalSettings: FlatSettings = {
    'index.number_of_shards': String(DEFAULT_SHARDS),
    'index.number_of_replicas': String(DEFAULT_REPLICAS),
    ...settings,
    'index.creation_date': String(opts.now),
    'index.uuid': uuid,
    'index.version.created': VERSION_CREATED,
    'index.provided_name': name,
  };
  const { type, mapping } = resolveMappings(name, tpl.mappings, b.mappings, finalSettings, opts.typeless === true);
  const aliases: Record<string, AliasMeta> = { ...tpl.aliases, ...parseAliasesObject(b.aliases) };
  for (const a of Object.keys(aliases)) {
    validateAliasName(a);
    if (a === name || state.indices[a]) throw docError('DOC_INVALID_ALIAS_NAME', [a, 'an index exists with the same name as the alias'], { index_uuid: '_na_', index: a });
  }
  return { name, uuid, settings: finalSettings, type, mapping, mappingVersion: 1, aliases, creationDate: opts.now };
}

function resolveMappings(index: string, fromTemplates: Record<string, MappingJson>, requested: unknown,
  settings: FlatSettings, typeless: boolean): { type: string | null; mapping: MappingJson } {
  let req: Record<string, unknown> = {};
  if (requested != null) {
    if (typeof requested !== 'object' || Array.isArray(requested)) throw mapperParsing('Failed to parse mapping: mappings must be an object');
    req = typeless ? { _doc: requested } : requested as Record<string, unknown>;
  }
  // `_default_` is not a type: it is the mapping every new type starts from (Logstash 6's template puts its
  // dynamic templates there). A template's typed mapping (`_doc` included) is a type like any other, so a
  // write naming another type is refused, as in 6.8.
  const reqTypes = Object.keys(req).filter((t) => t !== DEFAULT_MAPPING);
  const tplTypes = Object.keys(fromTemplates).filter((t) => t !== DEFAULT_MAPPING);
  const types = [...new Set([...tplTypes, ...reqTypes])];
  if (types.length > 1) {
    throw illegalArgument(`Rejecting mapping update to [${index}] as the final mapping would have more than 1 type: [${types.join(', ')}]`);
  }
  let merged: Record<string, unknown> = {};
  for (const m of [fromTemplates[DEFAULT_MAPPING], req[DEFAULT_MAPPING]]) if (m) merged = deepMerge(merged, m as Record<string, unknown>);
  if (types.length === 0 && Object.keys(merged).length === 0) return { type: null, mapping: {} };
  const type = types[0] ?? null;
  for (const t of tplTypes) merged = deepMerge(merged, fromTemplates[t] as Record<string, unknown>);
  if (type !== null && req[type] !== undefined) merged = deepMerge(merged, (req[type] ?? {}) as Record<string, unknown>);
  merged = expandDottedFields(merged);
  try {
    // The root object mapper is named after the type, and a mapper refuses an empty name.
    if (type === '') throw illegalArgument('name cannot be empty string');
    if (type !== null) validateTypeName(type);
    validateRootMapping(merged, { customAnalyzers: customAnalyzers(settings) });
  } catch (e) {
    // MapperService.merge wraps whatever parsing a type's mapping throws: "Failed to parse mapping [type]: …".
    if (e instanceof EngineError && (e.code === 'DOC_MAPPER_PARSING' || e.code === 'DOC_ILLEGAL_ARGUMENT')) {
      throw mapperParsing(`Failed to parse mapping [${type ?? DEFAULT_MAPPING}]: ${e.message}`, { cause: { code: e.code, message: e.message, details: e.details } });
    }
    throw e;
  }
  const limit = Number(settings['index.mapping.total_fields.limit'] ?? 1000);
  if (countFields(merged) > limit) throw illegalArgument(`Limit of total fields [${limit}] in index [${index}] has been exceeded`);
  return { type, mapping: merged as MappingJson };
}
