/**
 * The adapter for `yaml`, the only module that imports it: config files, rule files, file SD and test cases.
 * The package (72 modules, ~50 ms of a thread's start) is required on the first call: a node started without
 * config or rule files reads none before it is ready (docs/benchmarks.md, issue 11).
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

export type { LineCounter, Node, Pair, YAMLMap } from 'yaml';

let loaded: typeof Yaml | null = null;

function yaml(): typeof Yaml {
  loaded ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return loaded;
}

type Fn = 'parse' | 'parseDocument' | 'stringify' | 'isMap' | 'isScalar' | 'isSeq';
const lazy = <K extends Fn>(name: K): (typeof Yaml)[K] =>
  ((...args: unknown[]) => (yaml()[name] as (...a: unknown[]) => unknown)(...args)) as (typeof Yaml)[K];

export const parse = lazy('parse');
export const parseDocument = lazy('parseDocument');
export const stringify = lazy('stringify');
export const isMap = lazy('isMap');
export const isScalar = lazy('isScalar');
export const isSeq = lazy('isSeq');

/** A line counter to pass to `parseDocument` (positions of nodes as line and column). */
export function lineCounter(): Yaml.LineCounter {
  return new (yaml().LineCounter)();
}
