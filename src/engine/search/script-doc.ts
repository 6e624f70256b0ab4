/**
 * Search scripts (`script` query, `_script` sort): the painless interpreter of the documents engine
 * (`documents/painless.ts`, the one implementation) run per document with `doc`, `params` and `_score`.
 * `doc['field']` reads the segment's doc values as ES 6.8's `ScriptDocValues` do: values sorted ascending,
 * `.value` of a doc without a value is 0 / 0.0 / false / epoch (ES 6's deprecated default) or null for strings.
 */
import { compileScript, HostObject, ScriptFailure, scriptRuntimeError, type CompiledScript, type ScriptSpec } from '../documents/painless.ts';
import { JavaDouble } from '../documents/source.ts';
import { InvalidArgumentError } from '../errors.ts';
import type { FieldInfos } from '../indexing/field-infos.ts';
import { NUMERIC_TYPES } from '../indexing/field-infos.ts';
import type { NumericDocValues, OrdinalDocValues, Segment } from '../postings/segment.ts';
import { stringColumn } from './fielddata.ts';

const DOUBLE_TYPES = new Set(['double', 'float', 'half_float', 'scaled_float']);

/** A search script compiled once per shard request; failures become the shard's `script_exception`. */
export class SearchScript {
  private readonly compiled: CompiledScript;
  readonly usesScore: boolean;
  constructor(readonly spec: ScriptSpec, returns: 'boolean' | 'double' | 'any') {
    this.compiled = guard(() => compileScript(spec, returns));
    this.usesScore = spec.source.includes('_score');
  }

  /** Runs against one doc of the lookup's segment. */
  run(lookup: DocLookup, doc: number, score: number): unknown {
    lookup.doc = doc;
    return guard(() => this.compiled.run({ doc: lookup, params: this.spec.params, _score: new JavaDouble(score) }));
  }
}

/** Turns a script failure into the engine error the shard reports (status from its inner cause, as ES). */
function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof ScriptFailure)) throw e;
    const inner = e.info.details.cause as { code: string } | undefined;
    const badRequest = !e.runtime || inner?.code === 'DOC_ILLEGAL_ARGUMENT';
    throw new InvalidArgumentError(badRequest ? 'DOC_SCRIPT' : 'SEARCH_SCRIPT_RUNTIME', e.info.message, e.info.details);
  }
}

/** `doc` of a search script: field values of the current doc of one segment. */
export class DocLookup extends HostObject {
  readonly javaType = 'org.elasticsearch.search.lookup.LeafDocLookup';
  doc = -1;
  private readonly fields = new Map<string, FieldValues>();
  constructor(private readonly seg: Segment, private readonly infos: FieldInfos, private readonly typeName: string) { super(); }

  override index(key: unknown): unknown {
    const name = String(key);
    let f = this.fields.get(name);
    if (!f) { f = this.open(name); this.fields.set(name, f); }
    f.load(this.doc);
    return f;
  }

  override call(name: string, args: unknown[]): unknown {
    if (name === 'containsKey') return this.infos.get(String(args[0])) !== undefined;
    if (name === 'get') return this.index(args[0]);
    return super.call(name, args);
  }

  private open(name: string): FieldValues {
    const fi = this.infos.get(name);
    if (!fi) throw scriptRuntimeError('DOC_ILLEGAL_ARGUMENT', `No field found for [${name}] in mapping with types [${this.typeName}]`);
    if (fi.type === 'text' && !fi.fielddata) {
      throw scriptRuntimeError('DOC_ILLEGAL_ARGUMENT', `Fielddata is disabled on text fields by default. Set fielddata=true on [${name}] in order to load fielddata in memory by uninverting the inverted index. Note that this can however use significant memory. Alternatively use a keyword field instead.`);
    }
    if (fi.type === 'keyword' || fi.type === 'text') return new FieldValues('str', null, stringColumn(this.seg, name, fi.type === 'text'));
    const kind = fi.type === 'date' ? 'date' : fi.type === 'boolean' ? 'bool' : DOUBLE_TYPES.has(fi.type) ? 'double' : NUMERIC_TYPES.has(fi.type) ? 'long' : null;
    if (!kind) throw scriptRuntimeError('DOC_ILLEGAL_ARGUMENT', `Fielddata is not supported on field [${name}] of type [${fi.type}]`);
    return new FieldValues(kind, this.seg.numeric(name), null);
  }
}

type Kind = 'str' | 'long' | 'double' | 'date' | 'bool';

/** `doc['field']`: the values of one doc (a `ScriptDocValues` list). */
class FieldValues extends HostObject {
  readonly javaType: string;
  private values: unknown[] = [];
  constructor(private readonly kind: Kind, private readonly num: NumericDocValues | null, private readonly ords: OrdinalDocValues | null) {
    super();
    this.javaType = `org.elasticsearch.index.fielddata.ScriptDocValues$${{ str: 'Strings', long: 'Longs', double: 'Doubles', date: 'Dates', bool: 'Booleans' }[kind]}`;
  }

  load(doc: number): void {
    const out: unknown[] = [];
    if (this.num && doc < this.num.start.length - 1) {
      for (let i = this.num.start[doc]; i < this.num.start[doc + 1]; i++) out.push(this.wrap(this.num.values[i]));
    } else if (this.ords && doc < this.ords.start.length - 1) {
      for (let i = this.ords.start[doc]; i < this.ords.start[doc + 1]; i++) out.push(this.ords.lookupOrd(this.ords.ords[i]));
    }
    this.values = out;
  }

  private wrap(v: number): unknown {
    switch (this.kind) {
      case 'double': return new JavaDouble(v);
      case 'date': return new DateValue(v);
      case 'bool': return v !== 0;
      default: return v;
    }
  }

  private first(): unknown {
    if (this.values.length) return this.values[0];
    return this.kind === 'str' ? null : this.wrap(0);
  }

  override member(name: string): unknown {
    switch (name) {
      case 'value': return this.first();
      case 'values': return this.values.slice();
      case 'empty': return this.values.length === 0;
      case 'date': return this.kind === 'date' ? this.first() : super.member(name);
      case 'dates': return this.kind === 'date' ? this.values.slice() : super.member(name);
    }
    return super.member(name);
  }

  override index(key: unknown): unknown { return this.get(key); }

  private get(key: unknown): unknown {
    const i = Number(key);
    if (!Number.isInteger(i) || i < 0 || i >= this.values.length) {
      throw scriptRuntimeError('DOC_SCRIPT_INDEX_BOUNDS', `Index ${String(key)} out of bounds for length ${this.values.length}`);
    }
    return this.values[i];
  }

  override call(name: string, args: unknown[]): unknown {
    switch (name) {
      case 'getValue': return this.first();
      case 'getValues': return this.values.slice();
      case 'size': return this.values.length;
      case 'isEmpty': return this.values.length === 0;
      case 'get': return this.get(args[0]);
      case 'getDate': return this.kind === 'date' ? this.first() : super.call(name, args);
    }
    return super.call(name, args);
  }

  override items(): unknown[] { return this.values.slice(); }
}

/** A date value: epoch millis with the few accessors scripts use (UTC). */
class DateValue extends HostObject {
  readonly javaType = 'org.joda.time.MutableDateTime';
  constructor(readonly millis: number) { super(); }
  override member(name: string): unknown {
    if (name === 'millis') return this.millis;
    return super.member(name);
  }
  override call(name: string, args: unknown[]): unknown {
    const d = new Date(this.millis);
    switch (name) {
      case 'getMillis': case 'toEpochMilli': return this.millis;
      case 'toInstant': return this;
      case 'getYear': return d.getUTCFullYear();
      case 'getMonthOfYear': case 'getMonthValue': return d.getUTCMonth() + 1;
      case 'getDayOfMonth': return d.getUTCDate();
      case 'getDayOfWeek': return d.getUTCDay() === 0 ? 7 : d.getUTCDay();
      case 'getHourOfDay': case 'getHour': return d.getUTCHours();
      case 'getMinuteOfHour': case 'getMinute': return d.getUTCMinutes();
      case 'getSecondOfMinute': case 'getSecond': return d.getUTCSeconds();
      case 'toString': return d.toISOString();
    }
    return super.call(name, args);
  }
}

