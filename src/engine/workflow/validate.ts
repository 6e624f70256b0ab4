/**
 * Parses and validates a workflow as sent to `POST /workflow/manage` (spec §1, §2, §9). JSON-string fields
 * are parsed first (any failure is INVALID_JSON), then types and ranges (VALIDATION_ERROR and the more
 * specific codes), then — only for a runnable definition — the graph (`graph.ts`).
 */
import { ACTIONS } from './actions.ts';
import { checkComparison, isLivestreamName, isOperation, parseEventValue, parseList, parseRuleProperty, wfError } from './properties.ts';
import { EVENT_TYPES, type ActionSpec, type ElementType, type Operation, type Target } from './model.ts';

export interface PropertyInput { name: string; operation: Operation; value: string }
export interface ElementInput {
  displayId: string;
  type: ElementType;
  metaString: string;
  incomings: string[];
  outgoings: string[];
  properties: PropertyInput[];
  extensions: unknown;
  action: ActionSpec | null;
  branches: { yes?: string; no?: string } | null;
}
export interface WorkflowInput {
  id: number | null;
  platId: string | null;
  businessId: number | null;
  type: number;
  title: string;
  description: string | null;
  target: Target;
  elements: ElementInput[];
  oneOff: boolean;
  enable: boolean;
  status: 0 | 1 | 2;
  createdBy: string | null;
  version: 0 | 1;
  properties: unknown[] | null;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPosInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
const bad = (path: string, msg: string) => wfError('WF_VALIDATION', `${path} ${msg}`, path);

/** A field that may arrive as a JSON string or as the already-parsed value. */
function jsonField(v: unknown, path: string, what: string): unknown {
  if (typeof v !== 'string') return v;
  try { return JSON.parse(v); } catch { throw wfError('WF_INVALID_JSON', `${path} is not ${what}`, path); }
}

function stringArray(v: unknown, path: string): string[] {
  if (v === undefined || v === null || v === '') return [];
  const parsed = jsonField(v, path, 'a JSON array of strings');
  if (!Array.isArray(parsed) || parsed.some((x) => typeof x !== 'string')) throw bad(path, 'is not a JSON array of strings');
  return parsed as string[];
}

function optString(v: unknown, path: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw bad(path, 'must be a string or null');
  return v;
}

function optBool(v: unknown, path: string, def: boolean): boolean {
  if (v === undefined || v === null) return def;
  if (typeof v !== 'boolean') throw bad(path, 'must be a boolean');
  return v;
}

function parseTarget(v: unknown): Target {
  if (v === undefined || v === null || v === '') return { type: 'all' };
  const t = jsonField(v, 'target', 'a JSON object');
  if (!isObj(t) || typeof t.type !== 'string') throw bad('target', 'must be an object with a type');
  if (t.type === 'all') return { type: 'all' };
  if (t.type === 'contacts') {
    if (!Array.isArray(t.contactIds) || t.contactIds.some((x) => typeof x !== 'string')) throw bad('target.contactIds', 'must be an array of strings');
    return { type: 'contacts', contactIds: t.contactIds as string[] };
  }
  if (t.type === 'tags') {
    if (!Array.isArray(t.tags) || t.tags.some((x) => typeof x !== 'string')) throw bad('target.tags', 'must be an array of strings');
    if (t.match !== undefined && t.match !== 'any' && t.match !== 'all') throw bad('target.match', 'must be any or all');
    return { type: 'tags', tags: t.tags as string[], match: (t.match as 'any' | 'all' | undefined) ?? 'any' };
  }
  throw bad('target.type', `[${t.type}] is not one of all, contacts, tags`);
}

const TYPES: Record<string, ElementType> = { event: 'Event', rule: 'Rule', action: 'Action' };

/** Phase 1: every JSON-string field of every element parses (INVALID_JSON wins over other codes). */
function parseJsonFields(els: unknown[]): { incomings: string[]; outgoings: string[]; extensions: unknown }[] {
  return els.map((e, i) => {
    const p = `workflowElements[${i}]`;
    if (!isObj(e)) throw bad(p, 'must be an object');
    const extensions = e.extensions === undefined || e.extensions === null || e.extensions === ''
      ? null : jsonField(e.extensions, `${p}.extensions`, 'a JSON object');
    return { incomings: stringArray(e.incomings, `${p}.incomings`), outgoings: stringArray(e.outgoings, `${p}.outgoings`), extensions };
  });
}

export function parseWorkflowInput(body: unknown): WorkflowInput {
  if (!isObj(body)) throw bad('body', 'must be a JSON object');
  const target = parseTarget(body.target);
  const rawEls = body.workflowElements ?? [];
  if (!Array.isArray(rawEls)) throw bad('workflowElements', 'must be an array');
  const parsed = parseJsonFields(rawEls);
  const version = body.version ?? 0;
  if (version !== 0 && version !== 1) throw bad('version', 'must be 0 or 1');
  const id = body.id ?? null;
  if (id !== null && !isPosInt(id)) throw bad('id', 'must be a positive integer');
  const businessId = body.businessId ?? null;
  if (version === 1 && !isPosInt(businessId)) throw bad('businessId', 'must be a positive integer when version=1');
  if (businessId !== null && !isPosInt(businessId)) throw bad('businessId', 'must be a positive integer');
  const platId = optString(body.platId, 'platId');
  if (version === 0 && (platId === null || platId === '')) throw bad('platId', 'is required when version=0');
  const type = body.type ?? 1;
  if (typeof type !== 'number' || !Number.isSafeInteger(type)) throw bad('type', 'must be an integer');
  if (typeof body.title !== 'string' || body.title.length < 1 || body.title.length > 200) throw bad('title', 'must be 1..200 characters');
  const status = body.status ?? 0;
  if (status !== 0 && status !== 1 && status !== 2) throw bad('status', 'must be 0, 1 or 2');
  const props = body.properties ?? null;
  if (props !== null && !Array.isArray(props)) throw bad('properties', 'must be an array or null');
  const elements = rawEls.map((e, i) => parseElement(e as Record<string, unknown>, parsed[i], i, version));
  return {
    id: id as number | null, platId, businessId: businessId as number | null, type, title: body.title,
    description: optString(body.description, 'description'), target, elements,
    oneOff: optBool(body.oneOff, 'oneOff', false), enable: optBool(body.enable, 'enable', false), status,
    createdBy: optString(body.createdBy, 'createdBy'), version, properties: props as unknown[] | null,
  };
}

function parseElement(e: Record<string, unknown>, j: { incomings: string[]; outgoings: string[]; extensions: unknown }, i: number, version: 0 | 1): ElementInput {
  const p = `workflowElements[${i}]`;
  if (typeof e.displayId !== 'string' || e.displayId === '') throw bad(`${p}.displayId`, 'must be a non-empty string');
  const type = typeof e.type === 'string' ? TYPES[e.type.toLowerCase()] : undefined;
  if (!type) throw bad(`${p}.type`, 'must be Event, Rule or Action');
  if (e.metaString !== undefined && e.metaString !== null && typeof e.metaString !== 'string') throw bad(`${p}.metaString`, 'must be a string');
  const rawProps = e.properties ?? [];
  if (!Array.isArray(rawProps)) throw bad(`${p}.properties`, 'must be an array');
  const properties = rawProps.map((q, k) => parseProperty(q, `${p}.properties[${k}]`, type, version));
  let action: ActionSpec | null = null;
  let branches: { yes?: string; no?: string } | null = null;
  if (type === 'Action' && j.extensions !== null) action = parseAction(j.extensions, `${p}.extensions`, version);
  if (type === 'Rule' && j.extensions !== null) branches = parseBranches(j.extensions, `${p}.extensions`);
  return {
    displayId: e.displayId, type, metaString: (e.metaString as string | undefined) ?? '',
    incomings: j.incomings, outgoings: j.outgoings, properties, extensions: j.extensions, action, branches,
  };
}

function parseProperty(q: unknown, p: string, type: ElementType, version: 0 | 1): PropertyInput {
  if (!isObj(q)) throw bad(p, 'must be an object');
  if (typeof q.name !== 'string' || q.name === '') throw bad(`${p}.name`, 'must be a non-empty string');
  const value = typeof q.value === 'number' ? String(q.value) : q.value;
  if (type === 'Event') {
    if (q.name !== 'event' && q.name !== 'eventValue') throw wfError('WF_UNKNOWN_PROPERTY', `${p}.name [${q.name}] is not an event property`, `${p}.name`);
    checkComparison(q.operation, value, false, p);
    checkEventValues(q.name, value as string, p, version);
  } else {
    checkRuleName(q.name, `${p}.name`, version);
    checkComparison(q.operation, value, parseRuleProperty(q.name)!.numeric, p);
  }
  return { name: q.name, operation: q.operation as Operation, value: value as string };
}

function checkRuleName(name: string, path: string, version: 0 | 1): void {
  if (isLivestreamName(name) && version === 0) {
    throw wfError('WF_LIVESTREAM_REQUIRES_VERSION_1', `${path} [${name}] is a livestream property; the workflow needs version=1`, path);
  }
  if (!parseRuleProperty(name)) throw wfError('WF_UNKNOWN_PROPERTY', `${path} [${name}] matches no known property`, path);
}

function checkEventValues(name: string, value: string, p: string, version: 0 | 1): void {
  const items = parseList(value, `${p}.value`);
  for (const it of items) {
    const live = name === 'event' ? it === 'livestream' : it.startsWith('livestream-');
    if (live && version === 0) {
      throw wfError('WF_LIVESTREAM_REQUIRES_VERSION_1', `${p} [${it}] is a livestream event; the workflow needs version=1`, `${p}.value`);
    }
    if (name === 'eventValue' && live) {
      const ev = parseEventValue(it);
      if (!ev || !(EVENT_TYPES as readonly string[]).includes(ev.event) || ev.channelId === '') {
        throw bad(`${p}.value`, `[${it}] is not livestream-{submit|apply|play}-{channelId}`);
      }
    }
  }
}

function optNumber(v: unknown, path: string, min: number, exclusive: boolean): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v) || (exclusive ? v <= min : v < min)) {
    throw bad(path, `must be a number ${exclusive ? '>' : '>='} ${min}`);
  }
  return v;
}

function parseAction(x: unknown, p: string, version: 0 | 1): ActionSpec {
  if (!isObj(x)) throw bad(p, 'must be a JSON object');
  if (typeof x.action !== 'string' || x.action === '') throw bad(`${p}.action`, 'must be a non-empty string');
  const handler = ACTIONS[x.action];
  if (!handler) throw wfError('WF_UNKNOWN_ACTION', `${p}.action [${x.action}] is not a registered action`, `${p}.action`);
  if (x.action === 'countdown' && version === 0) {
    throw wfError('WF_LIVESTREAM_REQUIRES_VERSION_1', `${p}.action countdown needs version=1`, `${p}.action`);
  }
  handler.validate(x.actionValue, `${p}.actionValue`);
  const delay = optNumber(x.delay, `${p}.delay`, 0, false);
  const within = optNumber(x.within, `${p}.within`, 0, true);
  const rule = optString(x.rule, `${p}.rule`);
  const ruleValue = x.ruleValue === undefined || x.ruleValue === null ? null : typeof x.ruleValue === 'number' ? String(x.ruleValue) : x.ruleValue;
  const ruleOperation = x.ruleOperation ?? null;
  if (ruleOperation !== null && !isOperation(ruleOperation)) throw bad(`${p}.ruleOperation`, `[${String(ruleOperation)}] is not a known operation`);
  if (rule !== null && rule !== '') {
    checkRuleName(rule, `${p}.rule`, version);
    if (typeof ruleValue !== 'string') throw bad(`${p}.ruleValue`, 'must be a string when rule is set');
    checkComparison(ruleOperation ?? 'in', ruleValue, parseRuleProperty(rule)!.numeric, p);
  }
  const repeat = x.repeat ?? null;
  if (repeat !== null && typeof repeat !== 'boolean' && (typeof repeat !== 'number' || repeat < 0)) throw bad(`${p}.repeat`, 'must be a boolean, a number >= 0 or null');
  const { countdown, countdownValue } = parseCountdown(x, p, version);
  return {
    action: x.action, actionValue: x.actionValue ?? null, delay, within, rule: rule === '' ? null : rule,
    ruleValue: ruleValue as string | null, ruleOperation: ruleOperation as Operation | null, repeat: repeat as boolean | number | null,
    countdown, countdownValue,
  };
}

function parseCountdown(x: Record<string, unknown>, p: string, version: 0 | 1): { countdown: string | null; countdownValue: number | null } {
  const countdown = optString(x.countdown, `${p}.countdown`);
  if (countdown === null || countdown === '') return { countdown: null, countdownValue: null };
  if (version === 0) throw wfError('WF_LIVESTREAM_REQUIRES_VERSION_1', `${p}.countdown needs version=1`, `${p}.countdown`);
  const parsed = parseRuleProperty(countdown);
  if (!parsed) throw wfError('WF_UNKNOWN_PROPERTY', `${p}.countdown [${countdown}] matches no known property`, `${p}.countdown`);
  if (parsed.kind !== 'starttime') throw bad(`${p}.countdown`, 'must be livestream_rule_starttime_{channelId}');
  const raw = x.countdownValue ?? 0;
  const n = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw bad(`${p}.countdownValue`, 'must be a non-negative integer (ms)');
  return { countdown, countdownValue: n };
}

function parseBranches(x: unknown, p: string): { yes?: string; no?: string } {
  if (!isObj(x)) throw bad(p, 'must be a JSON object');
  const out: { yes?: string; no?: string } = {};
  for (const k of ['yes', 'no'] as const) {
    if (x[k] === undefined || x[k] === null) continue;
    if (typeof x[k] !== 'string') throw bad(`${p}.${k}`, 'must be a path id');
    out[k] = x[k] as string;
  }
  return out;
}
