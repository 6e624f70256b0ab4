/** The adapter for `yaml`, the only module that imports it: config files, rule files, file SD and test cases. */
export { isMap, isScalar, isSeq, LineCounter, parse, parseDocument, stringify } from 'yaml';
export type { Node, Pair, YAMLMap } from 'yaml';
