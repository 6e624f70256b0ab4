/**
 * Prometheus relabelling (`model/relabel` in 2.42): rules validated once at config load, then applied in
 * order to a label set. Regexes are Go's (RE2, fully anchored), compiled by `regex/go-regex.ts` like every
 * label matcher's, so POSIX classes and inline flags read the same everywhere. Replacement expansion follows
 * Go's `regexp.Expand` (`regex/expand.ts`), including its quirk that `$1x` names the group `1x`: write `${1}x`.
 */
import { createHash } from 'node:crypto';
import { InvalidArgumentError } from '../errors.ts';
import type { Label, Labels } from '../tsdb/api.ts';
import { compileGoRegex, expandGoTemplate, type Re2Regex } from '../regex/index.ts';

export type RelabelAction =
  'replace' | 'keep' | 'drop' | 'hashmod' | 'labelmap' | 'labeldrop' | 'labelkeep' | 'lowercase' | 'uppercase' |
  'keepequal' | 'dropequal';

const ACTIONS = new Set<string>(['replace', 'keep', 'drop', 'hashmod', 'labelmap', 'labeldrop', 'labelkeep',
  'lowercase', 'uppercase', 'keepequal', 'dropequal']);

/** One validated rule. `regex` is anchored; `regexSrc` is the text as configured (for /status/config). */
export interface RelabelRule {
  readonly sourceLabels: readonly string[];
  readonly separator: string;
  readonly regex: Re2Regex;
  readonly regexSrc: string;
  readonly modulus: number;
  readonly targetLabel: string;
  readonly replacement: string;
  readonly action: RelabelAction;
}

const DEFAULTS = { separator: ';', regex: '(.*)', replacement: '$1', targetLabel: '', modulus: 0 };
const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const RELABEL_TARGET_RE = /^(?:(?:[a-zA-Z_]|\$(?:\{\w+\}|\w+))+\w*)+$/;

/** Compiles anchored as Prometheus's `relabel.NewRegexp`; errors read as Go's ("error parsing regexp: …"). */
function compileRegex(src: string): Re2Regex {
  try { return compileGoRegex(src); } catch (e) { return bad((e as Error).message); }
}

function bad(msg: string): never { throw new InvalidArgumentError('INVALID_ARGUMENT', msg); }

/** Validates one raw YAML relabel rule with Prometheus 2.42's checks and messages. */
export function parseRelabelRule(raw: unknown): RelabelRule {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) bad('relabel config must be a mapping');
  const r = raw as Record<string, unknown>;
  for (const k of Object.keys(r)) {
    if (!['source_labels', 'separator', 'regex', 'modulus', 'target_label', 'replacement', 'action'].includes(k)) {
      bad(`yaml: unmarshal errors:\n  field ${k} not found in type relabel.plain`);
    }
  }
  const action = (r.action === undefined ? 'replace' : String(r.action)).toLowerCase();
  if (action === '') bad('relabel action cannot be empty');
  if (!ACTIONS.has(action)) bad(`unknown relabel action "${r.action}"`);
  const sourceLabels = r.source_labels === undefined ? null : asStringList(r.source_labels, 'source_labels');
  for (const s of sourceLabels ?? []) if (!LABEL_NAME_RE.test(s)) bad(`"${s}" is not a valid label name`);
  const separator = r.separator === undefined ? DEFAULTS.separator : String(r.separator);
  const regexSrc = r.regex === undefined ? DEFAULTS.regex : String(r.regex);
  const modulus = r.modulus === undefined ? 0 : Number(r.modulus);
  if (!Number.isInteger(modulus) || modulus < 0) bad(`cannot unmarshal ${String(r.modulus)} into uint64 modulus`);
  const targetLabel = r.target_label === undefined ? '' : String(r.target_label);
  const replacement = r.replacement === undefined ? DEFAULTS.replacement : String(r.replacement);
  const rule: RelabelRule = {
    sourceLabels: sourceLabels ?? [], separator, regex: compileRegex(regexSrc), regexSrc, modulus, targetLabel,
    replacement, action: action as RelabelAction,
  };
  validateRule(rule, sourceLabels !== null);
  return rule;
}

/** A rule as Prometheus prints it in `/api/v1/status/config`: every field with its default, modulus and target only when set. */
export function marshalRelabelRule(r: RelabelRule): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (r.sourceLabels.length) out.source_labels = [...r.sourceLabels];
  out.separator = r.separator;
  out.regex = r.regexSrc;
  if (r.modulus) out.modulus = r.modulus;
  if (r.targetLabel) out.target_label = r.targetLabel;
  out.replacement = r.replacement;
  out.action = r.action;
  return out;
}

function validateRule(c: RelabelRule, hasSources: boolean): void {
  const a = c.action;
  if (a === 'hashmod' && c.modulus === 0) bad('relabel configuration for hashmod requires non-zero modulus');
  const needsTarget = a === 'replace' || a === 'hashmod' || a === 'lowercase' || a === 'uppercase' || a === 'keepequal' || a === 'dropequal';
  if (needsTarget && c.targetLabel === '') bad(`relabel configuration for ${a} action requires 'target_label' value`);
  if (a === 'replace' && !c.targetLabel.includes('$') && !LABEL_NAME_RE.test(c.targetLabel)) bad(`"${c.targetLabel}" is invalid 'target_label' for ${a} action`);
  if (a === 'replace' && c.targetLabel.includes('$') && !RELABEL_TARGET_RE.test(c.targetLabel)) bad(`"${c.targetLabel}" is invalid 'target_label' for ${a} action`);
  if ((a === 'lowercase' || a === 'uppercase' || a === 'hashmod' || a === 'keepequal' || a === 'dropequal') && !LABEL_NAME_RE.test(c.targetLabel)) {
    bad(`"${c.targetLabel}" is invalid 'target_label' for ${a} action`);
  }
  if ((a === 'lowercase' || a === 'uppercase' || a === 'keepequal' || a === 'dropequal') && c.replacement !== DEFAULTS.replacement) {
    bad(`'replacement' can not be set for ${a} action`);
  }
  if (a === 'labelmap' && !RELABEL_TARGET_RE.test(c.replacement)) bad(`"${c.replacement}" is invalid 'replacement' for ${a} action`);
  if (a === 'labeldrop' || a === 'labelkeep') {
    if (hasSources || c.targetLabel !== '' || c.modulus !== 0 || c.separator !== DEFAULTS.separator || c.replacement !== DEFAULTS.replacement) {
      bad(`${a} action requires only 'regex', and no other fields`);
    }
  }
  if ((a === 'keepequal' || a === 'dropequal') &&
      (c.regexSrc !== DEFAULTS.regex || c.modulus !== 0 || c.separator !== DEFAULTS.separator || c.replacement !== DEFAULTS.replacement)) {
    bad(`${a} action requires only 'source_labels' and \`target_label\`, and no other fields`);
  }
}

function asStringList(v: unknown, field: string): string[] {
  if (!Array.isArray(v)) bad(`${field} must be a list of strings`);
  return (v as unknown[]).map(String);
}

/**
 * Applies `rules` in order to `labels`. Returns the new label set sorted by name with empty values
 * removed, or null when a keep/drop rule drops it.
 */
export function relabel(labels: Labels, rules: readonly RelabelRule[]): Label[] | null {
  const b = new Map<string, string>();
  for (let i = 0; i < labels.length; i++) if (labels[i].value !== '') b.set(labels[i].name, labels[i].value);
  for (let i = 0; i < rules.length; i++) {
    if (!applyRule(b, rules[i])) return null;
  }
  return toSortedLabels(b);
}

/** Sorted label array from a name → value map, skipping empty values. */
export function toSortedLabels(b: Map<string, string>): Label[] {
  const out: Label[] = [];
  for (const [name, value] of b) if (value !== '') out.push({ name, value });
  out.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  return out;
}

function applyRule(b: Map<string, string>, c: RelabelRule): boolean {
  let val = '';
  for (let i = 0; i < c.sourceLabels.length; i++) {
    if (i > 0) val += c.separator;
    val += b.get(c.sourceLabels[i]) ?? '';
  }
  switch (c.action) {
    case 'drop': return !c.regex.matchesWhole(val);
    case 'keep': return c.regex.matchesWhole(val);
    case 'dropequal': return (b.get(c.targetLabel) ?? '') !== val;
    case 'keepequal': return (b.get(c.targetLabel) ?? '') === val;
    case 'replace': {
      const m = c.regex.exec(val);
      if (!m) return true;
      const target = expandGoTemplate(c.targetLabel, m);
      if (!LABEL_NAME_RE.test(target)) return true;
      setOrDelete(b, target, expandGoTemplate(c.replacement, m));
      return true;
    }
    case 'lowercase': setOrDelete(b, c.targetLabel, val.toLowerCase()); return true;
    case 'uppercase': setOrDelete(b, c.targetLabel, val.toUpperCase()); return true;
    case 'hashmod': b.set(c.targetLabel, String(hashMod(val, c.modulus))); return true;
    case 'labelmap': {
      for (const [name, value] of [...b]) {
        const m = c.regex.exec(name);
        if (m) b.set(expandGoTemplate(c.replacement, m), value);
      }
      return true;
    }
    case 'labeldrop': case 'labelkeep': {
      const keep = c.action === 'labelkeep';
      for (const name of [...b.keys()]) if (c.regex.matchesWhole(name) !== keep) b.delete(name);
      return true;
    }
  }
}

function setOrDelete(b: Map<string, string>, name: string, value: string): void {
  if (value === '') b.delete(name); else b.set(name, value);
}


/** `sum64(md5(val)) % modulus` as Prometheus computes it: the last 8 digest bytes as a big-endian uint64. */
export function hashMod(val: string, modulus: number): number {
  const d = createHash('md5').update(val).digest();
  const hi = d.readUInt32BE(8), lo = d.readUInt32BE(12);
  if (modulus <= 0x1fffff) return ((hi % modulus) * (0x100000000 % modulus) + (lo % modulus)) % modulus;
  // Cold path for huge moduli: exact 64-bit arithmetic.
  return Number(((BigInt(hi) << 32n) | BigInt(lo)) % BigInt(modulus));
}
