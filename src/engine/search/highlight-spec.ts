/** The `highlight` request section, resolved per field with global defaults (ES 6.8 unified highlighter options). */
import { parsingError } from './query-parser.ts';
import type { Query } from './query-ast.ts';
import { parseQuery } from './query-parser.ts';

export interface HighlightField {
  field: string;
  preTags: string[];
  postTags: string[];
  fragmentSize: number;
  numberOfFragments: number;
  noMatchSize: number;
  requireFieldMatch: boolean;
  order: 'none' | 'score';
  highlightQuery: Query | null;
}

export interface HighlightSpec { fields: HighlightField[] }

type Obj = Record<string, unknown>;

const KNOWN = ['pre_tags', 'post_tags', 'fragment_size', 'number_of_fragments', 'no_match_size', 'require_field_match', 'order', 'type',
  'highlight_query', 'boundary_scanner', 'boundary_chars', 'boundary_max_scan', 'encoder', 'fragmenter', 'tags_schema', 'fragment_offset',
  'matched_fields', 'phrase_limit', 'force_source', 'boundary_scanner_locale', 'max_analyzed_offset'];

export function parseHighlight(h: Obj): HighlightSpec {
  if (!h || typeof h !== 'object') throw parsingError('[highlight] failed to parse');
  for (const k of Object.keys(h)) if (k !== 'fields' && !KNOWN.includes(k)) throw parsingError(`[highlight] unknown field [${k}], parser not found`);
  const entries: [string, Obj][] = [];
  if (Array.isArray(h.fields)) for (const o of h.fields as Obj[]) for (const [k, v] of Object.entries(o)) entries.push([k, (v ?? {}) as Obj]);
  else for (const [k, v] of Object.entries((h.fields ?? {}) as Obj)) entries.push([k, (v ?? {}) as Obj]);
  const pick = <T>(f: Obj, k: string, d: T): T => (f[k] !== undefined ? f[k] : h[k] !== undefined ? h[k] : d) as T;
  const schema = h.tags_schema === 'styled';
  return {
    fields: entries.map(([field, f]) => ({
      field,
      preTags: [pick<string | string[]>(f, 'pre_tags', schema ? ['<em class="hlt">'] : ['<em>'])].flat(),
      postTags: [pick<string | string[]>(f, 'post_tags', ['</em>'])].flat(),
      fragmentSize: Number(pick(f, 'fragment_size', 100)),
      numberOfFragments: Number(pick(f, 'number_of_fragments', 5)),
      noMatchSize: Number(pick(f, 'no_match_size', 0)),
      requireFieldMatch: pick<unknown>(f, 'require_field_match', true) !== false,
      order: pick<unknown>(f, 'order', 'none') === 'score' ? 'score' : 'none',
      highlightQuery: f.highlight_query ? parseQuery(f, 'highlight_query') : h.highlight_query ? parseQuery(h, 'highlight_query') : null,
    })),
  };
}
