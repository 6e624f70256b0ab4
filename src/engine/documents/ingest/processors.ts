/**
 * Ingest processors (Elasticsearch 6.8's names, options and errors): set, remove, rename, append, convert,
 * lowercase, uppercase, trim, bytes, split, join, gsub, date, date_index_name, json, kv, grok, dissect, fail, drop,
 * script and pipeline. Each is built once from its JSON definition (option errors are ES's parse errors) and
 * run on an IngestDocument; `if`, `ignore_failure`, `on_failure` and `tag` are handled by the pipeline.
 */
import { formatDate, parseDateOrNull, zoneOffsetAt } from '../../analysis/date-format.ts';
import { compileRe2, expandGoTemplate, type Re2Regex } from '../../regex/index.ts';
import { docError, illegalArgument } from '../doc-errors.ts';
import { runScript, type ScriptSpec } from '../painless.ts';
import { parseByteSize } from './byte-size.ts';
import { compileGrok, grokMatch, type Grok } from './grok.ts';
import { javaType, type IngestDocument } from './ingest-document.ts';

/** What running a processor asks of the pipeline: nothing more, or drop the document. */
export type ProcessorResult = void | 'drop';

export interface ProcessorRuntime {
  /** Runs another stored pipeline (the `pipeline` processor). */
  runPipeline(name: string, doc: IngestDocument): ProcessorResult;
  parseScript(v: unknown): ScriptSpec;
}

export type ProcessorFn = (doc: IngestDocument, rt: ProcessorRuntime) => ProcessorResult;

/** Option reader for one processor definition, with ES's errors for missing or mistyped options. */
class Options {
  private readonly seen = new Set<string>();
  constructor(readonly type: string, readonly tag: string | undefined, private readonly o: Record<string, unknown>) {}

  private fail(name: string, msg: string): never {
    throw docError('DOC_PARSE', [`[${name}] ${msg}`], { processor_type: this.type, ...(this.tag ? { processor_tag: this.tag } : {}), property_name: name });
  }
  raw(name: string): unknown { this.seen.add(name); return this.o[name]; }
  str(name: string): string {
    const v = this.raw(name);
    if (v === undefined || v === null) this.fail(name, 'required property is missing');
    if (typeof v !== 'string') this.fail(name, 'property isn\'t a string, but of type [' + javaType(v) + ']');
    return v;
  }
  optStr(name: string, def?: string): string | undefined {
    const v = this.raw(name);
    if (v === undefined || v === null) return def;
    if (typeof v !== 'string') this.fail(name, 'property isn\'t a string, but of type [' + javaType(v) + ']');
    return v;
  }
  bool(name: string, def: boolean): boolean {
    const v = this.raw(name);
    if (v === undefined) return def;
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 'false') return v === 'true';
    this.fail(name, 'property isn\'t a boolean, but of type [' + javaType(v) + ']');
  }
  required(name: string): unknown {
    const v = this.raw(name);
    if (v === undefined) this.fail(name, 'required property is missing');
    return v;
  }
  strList(name: string): string[] {
    const v = this.required(name);
    if (typeof v === 'string') return [v];
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
    this.fail(name, 'property isn\'t a list, but of type [' + javaType(v) + ']');
  }
  regex(name: string): Re2Regex {
    const src = this.str(name);
    try { return compileRe2(src); } catch (e) { this.fail(name, `Invalid regex pattern: ${(e as Error).message}`); }
  }
  /** Options the definition has that this processor does not read (ES refuses them). */
  unknown(): string[] {
    return Object.keys(this.o).filter((k) => !this.seen.has(k) && !['if', 'tag', 'ignore_failure', 'on_failure'].includes(k));
  }
}

/** Wraps a per-field transformation with ES's `ignore_missing` and `target_field` handling. */
function fieldProcessor(o: Options, fn: (v: unknown, field: string) => unknown): ProcessorFn {
  const field = o.str('field');
  const target = o.optStr('target_field', field)!;
  const ignoreMissing = o.bool('ignore_missing', false);
  return (doc) => {
    const v = doc.get(field, true);
    if (v === undefined || v === null) {
      if (ignoreMissing) return;
      if (v === null) throw illegalArgument(`field [${field}] is null, cannot process it.`);
      doc.get(field);
    }
    doc.set(target, fn(v, field));
  };
}

function strTransform(o: Options, fn: (s: string) => string): ProcessorFn {
  return fieldProcessor(o, (v, field) => {
    if (Array.isArray(v)) return v.map((x) => { if (typeof x !== 'string') throw illegalArgument(`value [${String(x)}] of type [${javaType(x)}] in list field [${field}] cannot be cast to [java.lang.String]`); return fn(x); });
    if (typeof v !== 'string') throw illegalArgument(`field [${field}] of type [${javaType(v)}] cannot be cast to [java.lang.String]`);
    return fn(v);
  });
}

function convertValue(v: unknown, type: string, field: string): unknown {
  const one = (x: unknown): unknown => {
    const s = String(x).trim();
    switch (type) {
      case 'integer': case 'long': {
        if (!/^[+-]?\d+$/.test(s)) throw illegalArgument(`unable to convert [${String(x)}] to ${type}`);
        return Number(s);
      }
      case 'float': case 'double': {
        const n = Number(s);
        if (s === '' || Number.isNaN(n)) throw illegalArgument(`unable to convert [${String(x)}] to ${type}`);
        return n;
      }
      case 'boolean':
        if (s.toLowerCase() === 'true') return true;
        if (s.toLowerCase() === 'false') return false;
        throw illegalArgument(`[${String(x)}] is not a boolean value, cannot convert to boolean`);
      case 'string': return typeof x === 'object' && x !== null ? JSON.stringify(x) : String(x);
      case 'auto': {
        if (typeof x !== 'string') return x;
        if (/^[+-]?\d+$/.test(s)) return Number(s);
        if (s !== '' && !Number.isNaN(Number(s))) return Number(s);
        if (s === 'true' || s === 'false') return s === 'true';
        return x;
      }
      default: throw illegalArgument(`type [${type}] not supported, cannot convert field.`);
    }
  };
  void field;
  return Array.isArray(v) ? v.map(one) : one(v);
}

/** Builds the function of processor `type` from its options. */
export function buildProcessor(type: string, o: Options, rt: ProcessorRuntime): ProcessorFn {
  switch (type) {
    case 'set': {
      const field = o.str('field'), value = o.required('value'), override = o.bool('override', true);
      return (doc) => {
        if (!override && doc.get(field, true) !== undefined && doc.get(field, true) !== null) return;
        doc.set(doc.render(field), renderValue(doc, value));
      };
    }
    case 'remove': {
      const fields = o.strList('field'), ignoreMissing = o.bool('ignore_missing', false);
      return (doc) => { for (const f of fields) { const p = doc.render(f); if (ignoreMissing && !doc.has(p)) continue; doc.remove(p); } };
    }
    case 'rename': {
      const field = o.str('field'), target = o.str('target_field'), ignoreMissing = o.bool('ignore_missing', false);
      return (doc) => {
        if (!doc.has(field)) { if (ignoreMissing) return; throw illegalArgument(`field [${field}] doesn't exist`); }
        if (doc.has(target)) throw illegalArgument(`field [${target}] already exists`);
        const v = doc.get(field);
        doc.remove(field);
        doc.set(target, v);
      };
    }
    case 'append': {
      const field = o.str('field'), value = o.required('value');
      return (doc) => {
        const path = doc.render(field);
        const add = ([] as unknown[]).concat(renderValue(doc, value));
        const cur = doc.get(path, true);
        doc.set(path, cur === undefined ? add : [...([] as unknown[]).concat(cur), ...add]);
      };
    }
    case 'convert': {
      const t = o.str('type');
      if (!['integer', 'long', 'float', 'double', 'string', 'boolean', 'auto'].includes(t)) throw docError('DOC_PARSE', [`[type] type [${t}] not supported, cannot convert field.`], { processor_type: type, property_name: 'type' });
      return fieldProcessor(o, (v, field) => convertValue(v, t, field));
    }
    case 'lowercase': return strTransform(o, (s) => s.toLowerCase());
    case 'uppercase': return strTransform(o, (s) => s.toUpperCase());
    case 'trim': return strTransform(o, (s) => s.trim());
    case 'bytes': return fieldProcessor(o, (v, field) => {
      if (typeof v !== 'string') throw illegalArgument(`field [${field}] of type [${javaType(v)}] cannot be cast to [java.lang.String]`);
      return parseByteSize(v, field);
    });
    case 'split': {
      const re = o.regex('separator');
      return fieldProcessor(o, (v, field) => {
        if (typeof v !== 'string') throw illegalArgument(`field [${field}] of type [${javaType(v)}] cannot be cast to [java.lang.String]`);
        const out = splitBy(v, re);
        while (out.length > 1 && out[out.length - 1] === '') out.pop(); // as Java's String.split
        return out;
      });
    }
    case 'join': {
      const sep = o.str('separator');
      return fieldProcessor(o, (v, field) => {
        if (!Array.isArray(v)) throw illegalArgument(`field [${field}] of type [${javaType(v)}] cannot be cast to [java.util.List]`);
        return v.map((x) => String(x)).join(sep);
      });
    }
    case 'gsub': {
      const re = o.regex('pattern'), replacement = o.str('replacement');
      return strTransform(o, (s) => {
        let out = '', last = 0;
        for (const m of re.execAll(s)) { out += s.slice(last, m.index) + expandGoTemplate(replacement.replace(/\$(\d)/g, '$${$1}'), m); last = m.index + m[0]!.length; }
        return out + s.slice(last);
      });
    }
    case 'date': {
      const field = o.str('field'), target = o.optStr('target_field', '@timestamp')!, formats = o.strList('formats');
      const zone = o.optStr('timezone'), outFormat = o.optStr('output_format');
      o.optStr('locale');
      return (doc) => {
        const v = doc.get(field);
        const ms = parseWithFormats(v, formats, zone ? doc.render(zone) : undefined);
        if (ms === null) throw illegalArgument(`unable to parse date [${String(v)}]`);
        // The default output is ISO 8601 in UTC (`yyyy-MM-dd'T'HH:mm:ss.SSSXXX`, which prints Z).
        doc.set(target, outFormat === undefined ? new Date(ms).toISOString() : formatDate(ms, outFormat));
      };
    }
    case 'date_index_name': {
      const field = o.str('field'), prefix = o.optStr('index_name_prefix', '')!, rounding = o.str('date_rounding');
      const formats = o.raw('date_formats') === undefined ? ['ISO8601'] : o.strList('date_formats');
      const indexFormat = o.optStr('index_name_format', 'yyyy-MM-dd')!;
      if (!['y', 'M', 'w', 'd', 'h', 'm', 's'].includes(rounding)) throw docError('DOC_PARSE', [`[date_rounding] date rounding [${rounding}] not supported`], { processor_type: type, property_name: 'date_rounding' });
      return (doc) => {
        const v = doc.get(field);
        const ms = parseWithFormats(v, formats, undefined);
        if (ms === null) throw illegalArgument(`unable to parse date [${String(v)}]`);
        // As ES: a date math index name anchored at the document's date, resolved when the write is routed.
        doc.set('_index', `<${doc.render(prefix)}{${new Date(ms).toISOString()}||/${rounding}{${indexFormat}|UTC}}>`);
      };
    }
    case 'json': {
      const field = o.str('field'), target = o.optStr('target_field'), addToRoot = o.bool('add_to_root', false);
      return (doc) => {
        const v = doc.get(field);
        let parsed: unknown;
        try { parsed = JSON.parse(String(v)); } catch (e) { throw illegalArgument(`com.fasterxml.jackson.core.JsonParseException: ${(e as Error).message}`); }
        if (addToRoot) {
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw illegalArgument('cannot add non-map fields to root of document');
          for (const [k, x] of Object.entries(parsed)) doc.set(k, x);
        } else doc.set(target ?? field, parsed);
      };
    }
    case 'kv': {
      const field = o.str('field'), fieldSplit = o.regex('field_split'), valueSplit = o.regex('value_split');
      const target = o.optStr('target_field'), ignoreMissing = o.bool('ignore_missing', false), prefix = o.optStr('prefix', '')!;
      const include = o.raw('include_keys') as string[] | undefined, exclude = o.raw('exclude_keys') as string[] | undefined;
      const trimKey = o.optStr('trim_key'), trimValue = o.optStr('trim_value'), stripBrackets = o.bool('strip_brackets', false);
      return (doc) => {
        const v = doc.get(field, true);
        if (v === undefined || v === null) { if (ignoreMissing) return; doc.get(field); }
        for (const pair of splitBy(String(v), fieldSplit)) {
          const parts = splitBy(pair, valueSplit, 2);
          if (parts.length !== 2) continue;
          let [k, x] = parts;
          if (trimKey) k = trimChars(k, trimKey);
          if (trimValue) x = trimChars(x, trimValue);
          if (stripBrackets) x = x.replace(/^[([<"'](.*)[)\]>"']$/, '$1');
          if (include && !include.includes(k)) continue;
          if (exclude && exclude.includes(k)) continue;
          const path = (target ? `${target}.` : '') + prefix + k;
          const cur = doc.get(path, true);
          doc.set(path, cur === undefined ? x : [...([] as unknown[]).concat(cur), x]);
        }
      };
    }
    case 'grok': {
      const field = o.str('field'), patterns = o.strList('patterns'), traceMatch = o.bool('trace_match', false), ignoreMissing = o.bool('ignore_missing', false);
      const defs = (o.raw('pattern_definitions') ?? {}) as Record<string, string>;
      let groks: Grok[];
      try { groks = patterns.map((p) => compileGrok(p, defs)); } catch (e) {
        throw docError('DOC_PARSE', [`[patterns] ${(e as Error).message}`], { processor_type: type, property_name: 'patterns' });
      }
      return (doc) => {
        const v = doc.get(field, true);
        if (v === undefined || v === null) { if (ignoreMissing) return; doc.get(field); }
        const m = grokMatch(groks, String(v));
        if (!m) throw illegalArgument('Provided Grok expressions do not match field value: [' + String(v) + ']');
        for (const [k, x] of m.captures) doc.set(k, x);
        if (traceMatch) doc.set('_ingest._grok_match_index', String(m.index));
      };
    }
    case 'dissect': {
      const field = o.str('field'), pattern = o.str('pattern'), append = o.optStr('append_separator', '')!, ignoreMissing = o.bool('ignore_missing', false);
      const d = compileDissect(pattern);
      return (doc) => {
        const v = doc.get(field, true);
        if (v === undefined || v === null) { if (ignoreMissing) return; doc.get(field); }
        const out = runDissect(d, String(v), append);
        if (!out) throw illegalArgument(`Unable to find match for dissect pattern: ${pattern} against source: ${String(v)}`);
        for (const [k, x] of out) doc.set(k, x);
      };
    }
    case 'fail': {
      const message = o.str('message');
      return (doc) => { throw docError('DOC_INGEST_FAIL', [doc.render(message)]); };
    }
    case 'drop': return () => 'drop';
    case 'script': {
      const spec = rt.parseScript({ source: o.raw('source') ?? o.raw('inline'), params: o.raw('params'), lang: o.raw('lang') ?? 'painless' });
      o.raw('id');
      return (doc) => {
        const ctx = doc.scriptContext();
        runScript(spec, ctx);
        doc.absorbScriptContext(ctx);
      };
    }
    case 'pipeline': {
      const name = o.str('name');
      // The runtime passed at run time (the compile-time one resolves no pipelines).
      return (doc, runtime) => runtime.runPipeline(doc.render(name), doc);
    }
    default:
      throw docError('DOC_PARSE', [`No processor type exists with name [${type}]`], { processor_type: type });
  }
}

export { Options as ProcessorOptions };

/** A value with its string parts rendered as templates (`{{field}}`). */
function renderValue(doc: IngestDocument, v: unknown): unknown {
  if (typeof v === 'string') return doc.render(v);
  if (Array.isArray(v)) return v.map((x) => renderValue(doc, x));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, renderValue(doc, x)]));
  return v;
}

/** Parses a date with ES's ingest date formats (`ISO8601`, `UNIX`, `UNIX_MS`, `TAI64N`, or a Joda pattern). */
function parseWithFormats(v: unknown, formats: string[], zone: string | undefined): number | null {
  for (const f of formats) {
    if (f === 'UNIX') { const n = Number(v); if (!Number.isNaN(n)) return Math.round(n * 1000); continue; }
    if (f === 'UNIX_MS') { const n = Number(v); if (!Number.isNaN(n)) return Math.round(n); continue; }
    if (f === 'TAI64N') continue;
    const fmt = f === 'ISO8601' ? 'strict_date_optional_time' : f;
    const ms = parseDateOrNull(v, fmt);
    if (ms !== null) return zone && f !== 'ISO8601' ? ms - zoneOffsetAt(zone, ms) : ms;
  }
  return null;
}


function splitBy(s: string, re: Re2Regex, limit = Infinity): string[] {
  const out: string[] = [];
  let last = 0;
  for (const m of re.execAll(s)) {
    if (out.length + 1 >= limit) break;
    if (m[0] === '') continue;
    out.push(s.slice(last, m.index));
    last = m.index + m[0]!.length;
  }
  out.push(s.slice(last));
  return out;
}

function trimChars(s: string, chars: string): string {
  let a = 0, b = s.length;
  while (a < b && chars.includes(s[a])) a++;
  while (b > a && chars.includes(s[b - 1])) b--;
  return s.slice(a, b);
}

/** A dissect pattern: literal delimiters between `%{key}` parts (`+` appends, `?` skips, `->` pads right). */
interface Dissect { keys: { name: string; append: boolean; skip: boolean; pad: boolean }[]; delims: string[]; lead: string }

function compileDissect(pattern: string): Dissect {
  const re = /%\{([^}]*)\}/g;
  const keys: Dissect['keys'] = [];
  const delims: string[] = [];
  let last = 0, lead = '';
  let m: RegExpExecArray | null;
  while ((m = re.exec(pattern)) !== null) {
    const lit = pattern.slice(last, m.index);
    if (keys.length === 0) lead = lit; else delims.push(lit);
    let k = m[1];
    const pad = k.endsWith('->');
    if (pad) k = k.slice(0, -2);
    const append = k.startsWith('+'), skip = k.startsWith('?') || k === '';
    keys.push({ name: k.replace(/^[+?&*]/, ''), append, skip, pad });
    last = m.index + m[0].length;
  }
  if (keys.length === 0) throw illegalArgument(`Unable to parse pattern: ${pattern}`);
  delims.push(pattern.slice(last));
  return { keys, delims, lead };
}

function runDissect(d: Dissect, s: string, appendSep: string): [string, string][] | null {
  if (!s.startsWith(d.lead)) return null;
  let pos = d.lead.length;
  const out = new Map<string, string>();
  for (let i = 0; i < d.keys.length; i++) {
    const delim = d.delims[i];
    let end: number;
    if (delim === '') end = i === d.keys.length - 1 ? s.length : pos;
    else { end = s.indexOf(delim, pos); if (end < 0) return null; }
    const value = s.slice(pos, end);
    pos = end + delim.length;
    if (d.keys[i].pad && delim !== '') while (s.startsWith(delim, pos)) pos += delim.length;
    const k = d.keys[i];
    if (k.skip) continue;
    if (k.append && out.has(k.name)) out.set(k.name, out.get(k.name)! + appendSep + value);
    else out.set(k.name, value);
  }
  return [...out];
}
