/**
 * A small, safe evaluator for the Painless subset of update scripts. It walks the AST from
 * `painless-parse.ts`; the only reachable values are `ctx`, `params` and locals (no `eval`, no host
 * objects), and a step budget stops runaway loops. Numbers follow Java typing: integers stay integers
 * (int arithmetic wraps, `int / int` truncates), doubles are `JavaDouble`s, `+` with a String concatenates.
 */
import { isLosslessNumber } from '../codec/lossless-json.ts';
import { cause, docError } from './doc-errors.ts';
import type { ErrorCause } from './doc-errors.ts';
import { CompileError, DoubleLit, parseScript, type Expr, type Stmt } from './painless-parse.ts';
import { JavaDouble, deepEqualLossless, isPlainObject, javaDouble } from './source.ts';

const MAX_STEPS = 1_000_000;

class RuntimeFail extends Error {
  constructor(readonly c: ErrorCause) { super(c.message); }
}
class Return { constructor(readonly v: unknown) {} }

/**
 * A value the embedding context supplies (a search script's `doc` and its field values, `Math`): member
 * reads, index reads and method calls go to the object itself, so the interpreter stays the one
 * implementation for every script context. Methods throw `scriptRuntimeError`s for failures.
 */
export abstract class HostObject {
  /** The Java type named in errors. */
  abstract readonly javaType: string;
  member(name: string): unknown { return cce(`Unknown field [${name}] for type [${this.javaType}]`); }
  index(key: unknown): unknown { void key; return cce(`Attempting to address a non-array-like type [${this.javaType}] as an array.`); }
  call(name: string, args: unknown[]): unknown { return cce(`Unknown call [${name}] with [${args.length}] arguments on type [${this.javaType}].`); }
  /** The elements a for-each loop visits; null when the object is not iterable. */
  items(): unknown[] | null { return null; }
}

/** A runtime failure raised by a host object (surfaces as the script's `runtime error` cause). */
export function scriptRuntimeError(code: 'DOC_ILLEGAL_ARGUMENT' | 'DOC_SCRIPT_INDEX_BOUNDS' | 'DOC_SCRIPT_CLASS_CAST', message: string): Error {
  return new RuntimeFail(cause(code, [message]));
}

/** Java's `Math` statics that scripts use for scoring and sorting. */
class JavaMath extends HostObject {
  readonly javaType = 'Math';
  override member(name: string): unknown {
    if (name === 'PI') return new JavaDouble(Math.PI);
    if (name === 'E') return new JavaDouble(Math.E);
    return super.member(name);
  }
  override call(name: string, args: unknown[]): unknown {
    const x = args.map((a) => { const v = rt(a); return v instanceof JavaDouble ? v.v : typeof v === 'number' ? v : v === null ? npe() : cce(`Cannot cast ${javaType(v)} to double`); });
    const allInt = args.every((a) => typeof rt(a) === 'number');
    switch (name) {
      case 'abs': return allInt ? Math.abs(x[0]) : new JavaDouble(Math.abs(x[0]));
      case 'max': return allInt ? Math.max(x[0], x[1]) : new JavaDouble(Math.max(x[0], x[1]));
      case 'min': return allInt ? Math.min(x[0], x[1]) : new JavaDouble(Math.min(x[0], x[1]));
      case 'round': return Math.floor(x[0] + 0.5);
      case 'log': case 'log10': case 'sqrt': case 'exp': case 'floor': case 'ceil': case 'sin': case 'cos': case 'tan': case 'cbrt':
        return new JavaDouble((Math as unknown as Record<string, (v: number) => number>)[name](x[0]));
      case 'pow': return new JavaDouble(Math.pow(x[0], x[1]));
      case 'log1p': return new JavaDouble(Math.log1p(x[0]));
      case 'signum': return new JavaDouble(Math.sign(x[0]));
    }
    return super.call(name, args);
  }
}
const JAVA_MATH = new JavaMath();

const npe = (): never => { throw new RuntimeFail(cause('DOC_SCRIPT_NULL_POINTER', [''])); };
const cce = (msg: string): never => { throw new RuntimeFail(cause('DOC_SCRIPT_CLASS_CAST', [msg])); };

function javaType(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return 'java.lang.String';
  if (typeof v === 'boolean') return 'java.lang.Boolean';
  if (v instanceof JavaDouble) return 'java.lang.Double';
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) <= 2147483647 ? 'java.lang.Integer' : 'java.lang.Long';
  if (Array.isArray(v)) return 'java.util.ArrayList';
  if (v instanceof HostObject) return v.javaType;
  return 'java.util.HashMap';
}

/** Turns a value read from the source into its runtime form (lossless numbers → int/long or double). */
function rt(v: unknown): unknown {
  if (isLosslessNumber(v)) return /[.eE]/.test(v.value) ? new JavaDouble(Number(v.value)) : Number(v.value);
  return v;
}

/** Java `String.valueOf` for concatenation. */
export function javaToString(v: unknown): string {
  v = rt(v);
  if (v === null || v === undefined) return 'null';
  if (v instanceof JavaDouble) return javaDouble(v.v);
  if (Array.isArray(v)) return `[${v.map(javaToString).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v as object).map(([k, x]) => `${k}=${javaToString(x)}`).join(', ')}}`;
  return String(v);
}

const isInt = (n: number): boolean => n >= -2147483648 && n <= 2147483647;

function arith(op: string, a: unknown, b: unknown): unknown {
  a = rt(a); b = rt(b);
  if (op === '+' && (typeof a === 'string' || typeof b === 'string')) return javaToString(a) + javaToString(b);
  if (a === null || b === null || a === undefined || b === undefined) npe();
  const da = a instanceof JavaDouble, db = b instanceof JavaDouble;
  if ((typeof a !== 'number' && !da) || (typeof b !== 'number' && !db)) cce(`Cannot apply [${op}] operation to types [${javaType(a)}] and [${javaType(b)}].`);
  const x = da ? (a as JavaDouble).v : (a as number);
  const y = db ? (b as JavaDouble).v : (b as number);
  if (da || db) {
    const r = op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : op === '/' ? x / y : x % y;
    return new JavaDouble(r);
  }
  if ((op === '/' || op === '%') && y === 0) throw new RuntimeFail(cause('DOC_SCRIPT_ARITHMETIC', ['/ by zero']));
  const ints = isInt(x) && isInt(y);
  switch (op) {
    case '+': return ints ? (x + y) | 0 : x + y;
    case '-': return ints ? (x - y) | 0 : x - y;
    case '*': return ints ? Math.imul(x, y) : x * y;
    case '/': return Math.trunc(x / y);
    default: return x % y;
  }
}

function compare(op: string, a: unknown, b: unknown): boolean {
  a = rt(a); b = rt(b);
  if (op === '==' || op === '!=') {
    const eq = a === b || (a !== null && b !== null && numOrNull(a) !== null && numOrNull(a) === numOrNull(b)) || (typeof a === 'object' && deepEqualLossless(a, b));
    return op === '==' ? eq : !eq;
  }
  const x = numOrNull(a), y = numOrNull(b);
  if (x === null || y === null) return a === null || b === null ? npe() : cce(`Cannot apply [${op}] operation to types [${javaType(a)}] and [${javaType(b)}].`);
  return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
}

function numOrNull(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (v instanceof JavaDouble) return v.v;
  return null;
}

function truthy(v: unknown): boolean {
  if (typeof v !== 'boolean') cce(`Cannot cast ${javaType(v)} to boolean`);
  return v as boolean;
}

class Interp {
  steps = 0;
  scopes: Map<string, unknown>[] = [];
  constructor(readonly globals: Record<string, unknown>) {}

  tick(): void { if (++this.steps > MAX_STEPS) throw new RuntimeFail(cause('DOC_SCRIPT', ['The maximum number of statements that can be executed in a loop has been reached.'])); }

  lookup(name: string): { found: boolean; v: unknown } {
    for (let i = this.scopes.length - 1; i >= 0; i--) if (this.scopes[i].has(name)) return { found: true, v: this.scopes[i].get(name) };
    if (Object.prototype.hasOwnProperty.call(this.globals, name)) return { found: true, v: this.globals[name] };
    if (name === 'Math') return { found: true, v: JAVA_MATH };
    return { found: false, v: undefined };
  }

  exec(s: Stmt): void {
    this.tick();
    switch (s.k) {
      case 'expr': this.eval(s.e); return;
      case 'block': this.scopes.push(new Map()); try { for (const x of s.body) this.exec(x); } finally { this.scopes.pop(); } return;
      case 'var': this.scopes[this.scopes.length - 1].set(s.name, s.init ? declared(s.type, this.eval(s.init)) : null); return;
      case 'if': if (truthy(this.eval(s.c))) this.exec(s.then); else if (s.else) this.exec(s.else); return;
      case 'ret': throw new Return(s.e ? this.eval(s.e) : null);
      case 'while': while (truthy(this.eval(s.c))) { this.tick(); this.exec(s.body); } return;
      case 'for':
        this.scopes.push(new Map());
        try {
          if (s.init) this.exec(s.init);
          while (s.c === null || truthy(this.eval(s.c))) { this.tick(); this.exec(s.body); if (s.step) this.eval(s.step); }
        } finally { this.scopes.pop(); }
        return;
      case 'each': {
        const it = rt(this.eval(s.iter));
        const hostItems = it instanceof HostObject ? it.items() : null;
        const items = Array.isArray(it) ? [...it] : hostItems ?? (it === null ? npe() : cce(`Cannot iterate over [${javaType(it)}]`));
        for (const v of items as unknown[]) { this.tick(); this.scopes.push(new Map([[s.name, v]])); try { this.exec(s.body); } finally { this.scopes.pop(); } }
      }
    }
  }

  eval(e: Expr): unknown {
    this.tick();
    switch (e.k) {
      case 'lit': return e.v instanceof DoubleLit ? new JavaDouble(e.v.v) : e.v;
      case 'id': { const r = this.lookup(e.name); if (!r.found) throw new CompileError(`cannot resolve symbol [${e.name}]`, 0); return r.v; }
      case 'mem': return getMember(this.eval(e.obj), e.name);
      case 'idx': return getIndex(this.eval(e.obj), rt(this.eval(e.index)));
      case 'call': return callMethod(this.eval(e.obj), e.name, e.args.map((a) => this.eval(a)));
      case 'new': return e.cls.endsWith('Map') ? {} : [];
      case 'list': return e.items.map((i) => this.eval(i));
      case 'map': { const o: Record<string, unknown> = {}; for (const [k, v] of e.entries) setOwn(o, javaToString(this.eval(k)), this.eval(v)); return o; }
      case 'un': {
        const v = rt(this.eval(e.e));
        if (e.op === '!') return !truthy(v);
        if (e.op === '-') return arith('-', 0, v);
        return v;
      }
      case 'bin': {
        if (e.op === '&&') return truthy(this.eval(e.l)) && truthy(this.eval(e.r));
        if (e.op === '||') return truthy(this.eval(e.l)) || truthy(this.eval(e.r));
        const l = this.eval(e.l), r = this.eval(e.r);
        return '+-*/%'.includes(e.op) ? arith(e.op, l, r) : compare(e.op, l, r);
      }
      case 'cond': return truthy(this.eval(e.c)) ? this.eval(e.a) : this.eval(e.b);
      case 'asg': {
        const v = e.op === '=' ? this.eval(e.v) : arith(e.op[0], this.eval(e.t), this.eval(e.v));
        this.assign(e.t, v);
        return v;
      }
      case 'upd': {
        const old = rt(this.eval(e.t));
        const v = arith(e.op === '++' ? '+' : '-', old, 1);
        this.assign(e.t, v);
        return e.prefix ? v : old;
      }
    }
  }

  assign(t: Expr, v: unknown): void {
    if (t.k === 'id') {
      for (let i = this.scopes.length - 1; i >= 0; i--) if (this.scopes[i].has(t.name)) { this.scopes[i].set(t.name, v); return; }
      throw new CompileError(`cannot resolve symbol [${t.name}]`, 0);
    }
    const obj = this.eval((t as { obj: Expr }).obj);
    const key = t.k === 'mem' ? t.name : rt(this.eval((t as { index: Expr }).index));
    if (obj === null || obj === undefined) npe();
    if (Array.isArray(obj)) {
      const i = Number(key);
      if (!Number.isInteger(i) || i < 0 || i >= obj.length) throw new RuntimeFail(cause('DOC_SCRIPT_INDEX_BOUNDS', [`Index ${key} out of bounds for length ${obj.length}`]));
      obj[i] = v;
      return;
    }
    if (!isPlainObject(obj)) cce(`Cannot access field [${String(key)}] on [${javaType(obj)}]`);
    setOwn(obj as Record<string, unknown>, String(key), v);
  }
}

function declared(type: string, v: unknown): unknown {
  v = rt(v);
  if ((type === 'double' || type === 'float') && typeof v === 'number') return new JavaDouble(v);
  if ((type === 'int' || type === 'long') && v instanceof JavaDouble) cce('Cannot cast from [double] to [int].');
  return v;
}

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Own-property read: a script never reaches prototypes (`__proto__`, `constructor`). */
function own(o: Record<string, unknown>, k: string): unknown {
  return hasOwn(o, k) ? o[k] : null;
}

/** Own-property write; `defineProperty` so that a `__proto__` key is data, not the prototype. */
function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
}

function getMember(obj: unknown, name: string): unknown {
  if (obj === null || obj === undefined) npe();
  if (obj instanceof HostObject) return obj.member(name);
  if (Array.isArray(obj)) { if (name === 'length' || name === 'size') return obj.length; return cce(`Unknown field [${name}] for type [List]`); }
  if (isPlainObject(obj)) return own(obj as Record<string, unknown>, name);
  if (typeof obj === 'string' && name === 'length') return obj.length;
  return cce(`Unknown field [${name}] for type [${javaType(obj)}]`);
}

function getIndex(obj: unknown, key: unknown): unknown {
  if (obj === null || obj === undefined) npe();
  if (obj instanceof HostObject) return obj.index(key);
  if (Array.isArray(obj)) {
    const i = Number(key);
    if (!Number.isInteger(i) || i < 0 || i >= obj.length) throw new RuntimeFail(cause('DOC_SCRIPT_INDEX_BOUNDS', [`Index ${String(key)} out of bounds for length ${obj.length}`]));
    return obj[i];
  }
  if (isPlainObject(obj)) return own(obj as Record<string, unknown>, javaToString(key));
  return cce(`Attempting to address a non-array-like type [${javaType(obj)}] as an array.`);
}

function callMethod(recv: unknown, name: string, a: unknown[]): unknown {
  const obj = rt(recv);
  if (name.startsWith('(cast)')) return obj;
  if (obj === null || obj === undefined) npe();
  const arg = a.map(rt);
  if (obj instanceof HostObject) return obj.call(name, a);
  if (name === 'equals') return compare('==', obj, arg[0]);
  if (name === 'toString') return javaToString(obj);
  if (Array.isArray(obj)) return listMethod(obj, name, a, arg);
  if (isPlainObject(obj)) return mapMethod(obj as Record<string, unknown>, name, a, arg);
  if (typeof obj === 'string') return stringMethod(obj, name, arg);
  return cce(`Unknown call [${name}] with [${a.length}] arguments on type [${javaType(obj)}].`);
}

function listMethod(l: unknown[], name: string, a: unknown[], arg: unknown[]): unknown {
  const idx = (i: unknown): number => {
    const n = Number(i);
    if (!Number.isInteger(n) || n < 0 || n >= l.length) throw new RuntimeFail(cause('DOC_SCRIPT_INDEX_BOUNDS', [`Index ${String(i)} out of bounds for length ${l.length}`]));
    return n;
  };
  switch (name) {
    case 'add': if (a.length === 2) { l.splice(Number(arg[0]), 0, a[1]); return null; } l.push(a[0]); return true;
    case 'addAll': if (Array.isArray(a[0])) l.push(...a[0]); return true;
    case 'remove': return typeof arg[0] === 'number' ? l.splice(idx(arg[0]), 1)[0] : ((): boolean => { const i = l.findIndex((x) => compare('==', x, arg[0])); if (i >= 0) l.splice(i, 1); return i >= 0; })();
    case 'contains': return l.some((x) => compare('==', x, arg[0]));
    case 'indexOf': return l.findIndex((x) => compare('==', x, arg[0]));
    case 'size': return l.length;
    case 'isEmpty': return l.length === 0;
    case 'get': return l[idx(arg[0])];
    case 'set': { const i = idx(arg[0]); const old = l[i]; l[i] = a[1]; return old; }
    case 'clear': l.length = 0; return null;
  }
  return cce(`Unknown call [${name}] with [${a.length}] arguments on type [List].`);
}

function mapMethod(m: Record<string, unknown>, name: string, a: unknown[], arg: unknown[]): unknown {
  const key = arg.length ? javaToString(arg[0]) : '';
  switch (name) {
    case 'containsKey': return Object.prototype.hasOwnProperty.call(m, key);
    case 'get': return own(m, key);
    case 'getOrDefault': return hasOwn(m, key) ? m[key] : a[1];
    case 'put': { const old = own(m, key); setOwn(m, key, a[1]); return old; }
    case 'remove': { const old = own(m, key); delete m[key]; return old; }
    case 'size': return Object.keys(m).length;
    case 'isEmpty': return Object.keys(m).length === 0;
    case 'keySet': return Object.keys(m);
    case 'values': return Object.values(m);
    case 'containsValue': return Object.values(m).some((x) => compare('==', x, arg[0]));
  }
  return cce(`Unknown call [${name}] with [${a.length}] arguments on type [Map].`);
}

function stringMethod(s: string, name: string, arg: unknown[]): unknown {
  switch (name) {
    case 'length': return s.length;
    case 'isEmpty': return s.length === 0;
    case 'contains': return s.includes(javaToString(arg[0]));
    case 'startsWith': return s.startsWith(javaToString(arg[0]));
    case 'endsWith': return s.endsWith(javaToString(arg[0]));
    case 'indexOf': return s.indexOf(javaToString(arg[0]));
    case 'toLowerCase': return s.toLowerCase();
    case 'toUpperCase': return s.toUpperCase();
    case 'trim': return s.trim();
    case 'substring': return s.substring(Number(arg[0]), arg[1] === undefined ? undefined : Number(arg[1]));
    case 'replace': return s.split(javaToString(arg[0])).join(javaToString(arg[1]));
  }
  return cce(`Unknown call [${name}] with [${arg.length}] arguments on type [String].`);
}

export interface ScriptSpec { source: string; params: Record<string, unknown>; lang: string }

/**
 * Runs a script against `ctx` (mutated in place); returns what it returns, or the value of its last
 * expression statement (an ingest `if` condition such as `ctx.level == 'error'`). Throws `failed to execute
 * script` errors.
 */
export function runScript(spec: ScriptSpec, ctx: Record<string, unknown>): unknown {
  try {
    return compileScript(spec).run({ ctx, params: spec.params });
  } catch (e) {
    if (e instanceof ScriptFailure) throw docError('DOC_SCRIPT_FAILED', [], { cause: e.info });
    throw e;
  }
}

/** A script's `script_exception` cause (`compile error` / `runtime error`, stack, source, lang, inner cause). */
export class ScriptFailure extends Error {
  constructor(readonly info: ErrorCause, readonly runtime: boolean) { super(info.message); }
}

/** A parsed script, run many times (once per document in a search). */
export interface CompiledScript {
  /** Runs with these globals (`ctx`, `params`, `doc`, `_score`…); throws a `ScriptFailure`. */
  run(globals: Record<string, unknown>): unknown;
}

/**
 * Parses `spec` once; throws a `ScriptFailure` (compile error). `returns` casts the result as the script
 * context's return type does (a filter script's boolean, a sort or score script's double as a JS number).
 */
export function compileScript(spec: ScriptSpec, returns: 'any' | 'boolean' | 'double' = 'any'): CompiledScript {
  let ast: Stmt[];
  try {
    ast = parseScript(spec.source);
  } catch (e) {
    if (e instanceof CompileError) throw new ScriptFailure(scriptCause(spec, 'compile error', cause('DOC_ILLEGAL_ARGUMENT', [e.message]), e.offset), false);
    throw e;
  }
  return { run: (globals) => execute(spec, ast, globals, returns) };
}

function castResult(v: unknown, returns: 'any' | 'boolean' | 'double'): unknown {
  if (returns === 'any') return v;
  v = rt(v);
  if (returns === 'boolean') return typeof v === 'boolean' ? v : cce(`Cannot cast ${javaType(v)} to java.lang.Boolean`);
  if (v === null || v === undefined) return npe();
  const n = numOrNull(v);
  return n === null ? cce(`Cannot cast ${javaType(v)} to java.lang.Number`) : n;
}

function execute(spec: ScriptSpec, ast: Stmt[], globals: Record<string, unknown>, returns: 'any' | 'boolean' | 'double'): unknown {
  const interp = new Interp(globals);
  interp.scopes.push(new Map());
  let last: unknown = null;
  try {
    try {
      for (const s of ast) {
        if (s.k === 'expr') last = interp.eval(s.e);
        else { interp.exec(s); last = null; }
      }
    } catch (e) {
      if (!(e instanceof Return)) throw e;
      last = e.v;
    }
    return castResult(last, returns);
  } catch (e) {
    if (e instanceof RuntimeFail) throw new ScriptFailure(scriptCause(spec, 'runtime error', e.c, 0), true);
    if (e instanceof CompileError) throw new ScriptFailure(scriptCause(spec, 'compile error', cause('DOC_ILLEGAL_ARGUMENT', [e.message]), 0), false);
    throw e;
  }
}

function scriptCause(spec: ScriptSpec, reason: string, inner: ErrorCause, offset: number): ErrorCause {
  const src = spec.source;
  const from = Math.max(0, offset - 25);
  const stack = [src.slice(from, offset + 25), `${' '.repeat(offset - from)}^---- HERE`];
  return cause('DOC_SCRIPT', [reason], { script_stack: stack, script: src, lang: spec.lang, cause: inner });
}
