/** Mapping shapes shared by the documents metadata, the indexing path and the search engine. */

/** An Elasticsearch type mapping body as JSON: `{dynamic?, properties: {field: {type, analyzer, fields, …}}}`. */
export interface MappingJson {
  dynamic?: boolean | 'strict' | 'true' | 'false';
  properties?: Record<string, FieldMappingJson>;
  [k: string]: unknown;
}

export interface FieldMappingJson {
  type?: string;
  analyzer?: string;
  search_analyzer?: string;
  fields?: Record<string, FieldMappingJson>;
  properties?: Record<string, FieldMappingJson>;
  ignore_above?: number;
  index?: boolean;
  format?: string;
  [k: string]: unknown;
}
