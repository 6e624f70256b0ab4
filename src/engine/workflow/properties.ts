/**
 * Rule/guard property names, operators and comparison (spec §3, §5). A property name is one of the known
 * `livestream_rule_<kind>_` prefixes followed by the channel id (which may itself contain `_`).
 */
import { InvalidArgumentError, EngineError } from '../errors.ts';
import { OPERATIONS, type Operation } from './model.ts';

export type RuleKind = 'playduration' | 'livestatus' | 'playtype' | 'isplaylive' | 'playcount' | 'starttime';
const KINDS: readonly RuleKind[] = ['playduration', 'livestatus', 'playtype', 'isplaylive', 'playcount', 'starttime'];
const NUMERIC: ReadonlySet<RuleKind> = new Set<RuleKind>(['playduration', 'playcount', 'starttime']);
const PREFIX = 'livestream_rule_';

export interface ParsedProperty { kind: RuleKind; channelId: string; numeric: boolean }

/** Splits `livestream_rule_<kind>_<channelId>`; null when the name matches no known pattern. */
export function parseRuleProperty(name: string): ParsedProperty | null {
  if (!name.startsWith(PREFIX)) return null;
  const rest = name.slice(PREFIX.length);
  for (const kind of KINDS) {
    if (rest.startsWith(kind + '_') && rest.length > kind.length + 1) {
      return { kind, channelId: rest.slice(kind.length + 1), numeric: NUMERIC.has(kind) };
    }
  }
  return null;
}

export function isLivestreamName(name: string): boolean {
  return name.startsWith(PREFIX);
}

/** Parses `eventValue` = `livestream-{type}-{channelId}` splitting on the first two `-` only. */
export function parseEventValue(v: string): { source: string; event: string; channelId: string } | null {
  const a = v.indexOf('-');
  if (a < 0) return null;
  const b = v.indexOf('-', a + 1);
  if (b < 0) return null;
  return { source: v.slice(0, a), event: v.slice(a + 1, b), channelId: v.slice(b + 1) };
}

/** `in`/`notIn` lists: a JSON array of strings when the value starts with `[`, else comma-separated. */
export function parseList(value: string, path: string): string[] {
  const t = value.trim();
  if (t.startsWith('[')) {
    let parsed: unknown;
    try { parsed = JSON.parse(t); } catch {
      throw wfError('WF_INVALID_JSON', `${path} is not a JSON array of strings`, path);
    }
    if (!Array.isArray(parsed) || parsed.some((x) => typeof x !== 'string' && typeof x !== 'number')) {
      throw wfError('WF_VALIDATION', `${path} is not a JSON array of strings`, path);
    }
    return parsed.map((x) => String(x));
  }
  return t.split(',').map((s) => s.trim());
}

export function isOperation(op: unknown): op is Operation {
  return typeof op === 'string' && (OPERATIONS as readonly string[]).includes(op);
}

const ORDERED: ReadonlySet<Operation> = new Set<Operation>(['greaterThan', 'greaterThanOrEqual', 'lessThan', 'lessThanOrEqual']);

/** Save-time check of an (operation, value) pair for a property of the given type. */
export function checkComparison(op: unknown, value: unknown, numeric: boolean, path: string): void {
  if (!isOperation(op)) throw wfError('WF_VALIDATION', `${path}.operation [${String(op)}] is not a known operation`, `${path}.operation`);
  if (typeof value !== 'string') throw wfError('WF_VALIDATION', `${path}.value must be a string`, `${path}.value`);
  if (ORDERED.has(op) && !numeric) {
    throw wfError('WF_VALIDATION', `${path}.operation ${op} needs a numeric property`, `${path}.operation`);
  }
  if (!numeric) { if (op === 'in' || op === 'notIn') parseList(value, `${path}.value`); return; }
  const items = op === 'in' || op === 'notIn' ? parseList(value, `${path}.value`) : [value];
  for (const it of items) {
    if (it.trim() === '' || !Number.isFinite(Number(it))) {
      throw wfError('WF_VALIDATION', `${path}.value [${value}] is not numeric`, `${path}.value`);
    }
  }
}

/**
 * Compares a resolved property value with a rule value. `undefined` makes every comparison false
 * (so `notIn` is false too, §3).
 */
export function compare(actual: string | number | undefined, op: Operation, value: string, numeric: boolean): boolean {
  if (actual === undefined) return false;
  switch (op) {
    case 'in': return inList(actual, value, numeric);
    case 'notIn': return !inList(actual, value, numeric);
    case 'equals': return eq(actual, value, numeric);
    case 'notEquals': return !eq(actual, value, numeric);
    case 'greaterThan': return Number(actual) > Number(value);
    case 'greaterThanOrEqual': return Number(actual) >= Number(value);
    case 'lessThan': return Number(actual) < Number(value);
    case 'lessThanOrEqual': return Number(actual) <= Number(value);
  }
}

function eq(actual: string | number, value: string, numeric: boolean): boolean {
  return numeric ? Number(actual) === Number(value) : String(actual) === value;
}

/**
 * Parsed `in`/`notIn` lists by their text. The texts are a workflow's property values, checked for every event
 * against every entry element: parsing them each time was a split, a trim per item and their strings per
 * event. Bounded: emptied when full (a catalog rarely has this many distinct lists).
 */
const parsedLists = new Map<string, readonly string[]>();
const PARSED_LISTS_MAX = 1024;

function listOf(value: string): readonly string[] {
  let items = parsedLists.get(value);
  if (items === undefined) {
    items = parseList(value, 'value');
    if (parsedLists.size >= PARSED_LISTS_MAX) parsedLists.clear();
    parsedLists.set(value, items);
  }
  return items;
}

function inList(actual: string | number, value: string, numeric: boolean): boolean {
  const items = listOf(value);
  for (let i = 0; i < items.length; i++) if (eq(actual, items[i], numeric)) return true;
  return false;
}

/** Builds a workflow error carrying the JSON path the wire layer echoes as `data.path`. */
export function wfError(code: 'WF_INVALID_JSON' | 'WF_VALIDATION' | 'WF_UNKNOWN_PROPERTY' | 'WF_UNKNOWN_ACTION'
  | 'WF_LIVESTREAM_REQUIRES_VERSION_1' | 'WF_GRAPH_INVALID', message: string, path?: string): EngineError {
  return new InvalidArgumentError(code, message, path === undefined ? {} : { path });
}
