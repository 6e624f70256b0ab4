/** Public entry of the PromQL engine. */
export { parseExpr } from './parser.ts';
export { formatExpr, prettyExpr } from './printer.ts';
export { instantQuery, rangeQuery, DEFAULT_ENGINE_OPTIONS } from './engine.ts';
export type { EngineOptions } from './engine.ts';
export { typeOf, documentedType } from './ast.ts';
export type { Expr, ValueType } from './ast.ts';
export { selectorRanges } from './selectors.ts';
export type { SelectorRange } from './selectors.ts';
export { resultJsonOpen, matrixJson, jsonString, SERIES_INDEX_FIELDS } from './result-json.ts';
export { mergeMatrixJson } from './matrix-json-merge.ts';
export type { MatrixJsonPart } from './matrix-json-merge.ts';
export { formatSampleValue, formatFloat } from './format.ts';
export type { QueryResult, Matrix, Vector } from './value.ts';
