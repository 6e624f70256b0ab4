/**
 * A flattened view of one type mapping: every leaf field (multi-fields included, `title.keyword`) with its
 * type, analyzers and nested scope, and every object/nested path. Built once per mapping object.
 */
import type { FieldMappingJson, MappingJson } from '../search/api.ts';
import type { CompletionKeyOptions } from './completion-terms.ts';
import { simpleMatch } from '../regex/index.ts';

export const NUMERIC_TYPES = new Set(['long', 'integer', 'short', 'byte', 'double', 'float', 'half_float', 'scaled_float']);
export const INTEGER_TYPES = new Set(['long', 'integer', 'short', 'byte']);

export interface FieldInfo {
  path: string;
  type: string;
  analyzer: string;
  searchAnalyzer: string;
  ignoreAbove: number;
  format: string | undefined;
  /** Innermost nested path containing this field ('' at the root). */
  nestedPath: string;
  indexed: boolean;
  fielddata: boolean;
  normalizer: string | undefined;
  /** The mapping's `term_vector` option (`no`, `yes`, `with_positions`, `with_offsets`, `with_positions_offsets`…). */
  termVector: string;
  /** Completion fields: how inputs become lookup keys (null for other types). */
  completion: CompletionKeyOptions | null;
  /** Where the value lives in `_source` (the parent's path for multi-fields such as `title.keyword`). */
  sourcePath: string;
}

export class FieldInfos {
  readonly fields = new Map<string, FieldInfo>();
  /** Object and nested paths → 'object' | 'nested'. */
  readonly objects = new Map<string, string>();
  /** The mapping leaves in declaration order (for wildcard field expansion). */
  readonly order: string[] = [];

  constructor(mapping: MappingJson | null | undefined, readonly defaultAnalyzer = 'standard', readonly defaultSearchAnalyzer?: string) {
    if (mapping?.properties) this.walk(mapping.properties, '', '');
  }

  private walk(props: Record<string, FieldMappingJson>, prefix: string, nested: string): void {
    for (const [name, m] of Object.entries(props)) {
      const path = prefix + name;
      const type = m.type ?? (m.properties ? 'object' : 'object');
      if (type === 'object' || type === 'nested') {
        this.objects.set(path, type);
        const inner = type === 'nested' ? path : nested;
        if (m.properties) this.walk(m.properties, path + '.', inner);
        continue;
      }
      this.add(path, m, nested, path);
      for (const [sub, sm] of Object.entries(m.fields ?? {})) this.add(`${path}.${sub}`, sm, nested, path);
    }
  }

  private add(path: string, m: FieldMappingJson, nested: string, sourcePath: string): void {
    // A completion field analyses with `simple` unless told otherwise (ES's CompletionFieldMapper).
    const analyzer = m.analyzer ?? (m.type === 'completion' ? 'simple' : this.defaultAnalyzer);
    this.fields.set(path, {
      path,
      type: m.type ?? 'object',
      analyzer,
      // Search side: the field's search_analyzer, then the index's default_search, then the field's analyzer.
      searchAnalyzer: m.search_analyzer ?? (m.type === 'completion' ? analyzer : this.defaultSearchAnalyzer ?? analyzer),
      ignoreAbove: typeof m.ignore_above === 'number' ? m.ignore_above : Infinity,
      format: m.format,
      nestedPath: nested,
      indexed: m.index !== false,
      fielddata: m.fielddata === true,
      normalizer: typeof m.normalizer === 'string' ? m.normalizer : undefined,
      termVector: typeof m.term_vector === 'string' ? m.term_vector : 'no',
      completion: m.type === 'completion' ? {
        preserveSeparators: m.preserve_separators !== false && m.preserve_separators !== 'false',
        maxInputLength: typeof m.max_input_length === 'number' ? m.max_input_length : 50,
      } : null,
      sourcePath,
    });
    this.order.push(path);
  }

  get(path: string): FieldInfo | undefined { return this.fields.get(path); }

  /** Field paths matching a pattern with `*` wildcards, in mapping order. */
  expand(pattern: string): string[] {
    if (!pattern.includes('*')) return this.fields.has(pattern) ? [pattern] : [];
    return this.order.filter((p) => simpleMatch(pattern, p));
  }
}
