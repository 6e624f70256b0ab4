/**
 * What `_mapping/field/{fields}?include_defaults=true` adds to a field's mapping: the values ES 6.8's field
 * mappers report for every parameter left unset (as `toXContent` with include_defaults writes them).
 * Parameters set in the mapping win.
 */
import type { FieldMappingJson } from '../../engine/search/api.ts';

const BASE = { boost: 1, index: true, store: false, term_vector: 'no', similarity: 'BM25' };
const NUMERIC = { ...BASE, doc_values: true, norms: false, null_value: null, ignore_malformed: false, coerce: true };

const BY_TYPE: Record<string, Record<string, unknown>> = {
  text: { ...BASE, doc_values: false, norms: true, index_options: 'positions', eager_global_ordinals: false, fielddata: false,
    fielddata_frequency_filter: { min: 0, max: 2147483647, min_segment_size: 0 }, position_increment_gap: 100 },
  keyword: { ...BASE, doc_values: true, norms: false, index_options: 'docs', eager_global_ordinals: false, normalizer: null,
    split_queries_on_whitespace: false, ignore_above: 2147483647, null_value: null },
  date: { ...BASE, doc_values: true, norms: false, null_value: null, ignore_malformed: false, format: 'strict_date_optional_time||epoch_millis', locale: '' },
  boolean: { ...BASE, doc_values: true, norms: false, null_value: null },
  ip: { ...BASE, doc_values: true, norms: false, null_value: null, ignore_malformed: false },
};
for (const t of ['long', 'integer', 'short', 'byte', 'double', 'float', 'half_float', 'scaled_float']) BY_TYPE[t] = NUMERIC;

/** `m` with the defaults of its type filled in; text analyzers default to `default`, then to each other. */
export function withMappingDefaults(m: FieldMappingJson): Record<string, unknown> {
  const type = String((m as Record<string, unknown>).type ?? 'object');
  const out: Record<string, unknown> = { type, ...(BY_TYPE[type] ?? {}), ...m };
  if (type === 'text') {
    out.analyzer ??= 'default';
    out.search_analyzer ??= out.analyzer;
    out.search_quote_analyzer ??= out.search_analyzer;
  }
  return out;
}
