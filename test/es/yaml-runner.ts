/**
 * A small runner for the HTTP case files under test/es/cases (in the spirit of the ES REST YAML tests).
 * A file is a YAML stream of documents `{<test name>: [steps]}`; steps:
 *   - do: {method, path, body?, ndjson?, headers?, catch?}   body objects are sent as JSON, `ndjson` lists
 *                                                           as NDJSON lines; `raw` sends a string as is
 *   - match: {<path>: expected}     paths: `status`, `text`, `headers.x`, `body.a.0.b` (`\.` escapes dots);
 *                                   strings in /slashes/ are regexes; `$var` refers to a `set` value
 *   - keys: {<path>: [k1, k2]}      exact key order of an object
 *   - length: {<path>: n}
 *   - set: {<path>: var}
 *   - is_true / is_false: <path>
 * Each test starts from an empty cluster (all indices and templates deleted).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readdirSync, readFileSync } from 'node:fs';
import { startServer, type TestServer } from '../support/server.ts';
import { parseAllDocuments } from 'yaml';

export interface Reply { status: number; text: string; headers: Record<string, string>; body: unknown }

type Step = Record<string, any>;

export function loadCases(text: string): [string, Step[]][] {
  const out: [string, Step[]][] = [];
  for (const doc of parseAllDocuments(text)) {
    const v = doc.toJS() as Record<string, Step[]> | null;
    if (!v) continue;
    for (const [name, steps] of Object.entries(v)) out.push([name, steps]);
  }
  return out;
}

export async function send(base: string, d: Step, stash: Map<string, unknown>): Promise<Reply> {
  const headers: Record<string, string> = { ...(d.headers ?? {}) };
  let body: string | undefined;
  if (d.ndjson !== undefined) {
    body = (d.ndjson as unknown[]).map((l) => (typeof l === 'string' ? l : JSON.stringify(subst(l, stash)))).join('\n') + '\n';
    headers['content-type'] ??= 'application/x-ndjson';
  } else if (d.raw !== undefined) {
    body = String(d.raw);
    headers['content-type'] ??= 'application/json';
  } else if (d.body !== undefined) {
    body = JSON.stringify(subst(d.body, stash));
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + subst(d.path, stash), { method: d.method ?? 'GET', headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* text body */ }
  const h: Record<string, string> = {};
  res.headers.forEach((v, k) => { h[k] = v; });
  return { status: res.status, text, headers: h, body: parsed };
}

function subst(v: unknown, stash: Map<string, unknown>): any {
  if (typeof v === 'string') {
    if (/^\$\w+$/.test(v) && stash.has(v.slice(1))) return stash.get(v.slice(1));
    return v.replace(/\$\{(\w+)\}/g, (_, k) => String(stash.get(k)));
  }
  if (Array.isArray(v)) return v.map((x) => subst(x, stash));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, subst(x, stash)]));
  return v;
}

export function lookup(r: Reply, path: string): unknown {
  if (path === 'status') return r.status;
  if (path === 'text') return r.text;
  if (path.startsWith('headers.')) return r.headers[path.slice(8)];
  const parts = path.replace(/\\\./g, '\u0000').split('.').map((p) => p.replace(/\u0000/g, '.'));
  let cur: unknown = { body: r.body };
  for (const p of parts) {
    if (cur === null || cur === undefined) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

function matches(actual: unknown, expected: unknown, where: string): void {
  if (typeof expected === 'string' && expected.length > 1 && expected.startsWith('/') && expected.endsWith('/')) {
    assert.match(String(actual), new RegExp(expected.slice(1, -1)), where);
    return;
  }
  assert.deepEqual(actual, expected, where);
}

const STATUS: Record<string, number> = { bad_request: 400, missing: 404, conflict: 409, request_timeout: 408, not_acceptable: 406, too_many: 429 };

export async function runCase(base: string, name: string, steps: Step[]): Promise<void> {
  const stash = new Map<string, unknown>();
  let last: Reply | null = null;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    const where = `${name} step ${i + 1} ${JSON.stringify(step).slice(0, 160)}`;
    if (step.do) {
      last = await send(base, step.do, stash);
      const c = step.do.catch;
      if (c !== undefined) {
        const want = typeof c === 'number' ? c : STATUS[c];
        assert.equal(last.status, want, `${where}: status (body ${last.text.slice(0, 400)})`);
      } else {
        assert.ok(last.status < 400 || step.do.allow_error, `${where}: unexpected ${last.status} ${last.text.slice(0, 400)}`);
      }
      continue;
    }
    assert.ok(last, `${where}: no response yet`);
    if (step.match) for (const [p, e] of Object.entries(step.match)) matches(lookup(last, p), subst(e, stash), `${where}: ${p} (body ${last.text.slice(0, 300)})`);
    if (step.keys) for (const [p, e] of Object.entries(step.keys)) assert.deepEqual(Object.keys(lookup(last, p) as object), e, `${where}: key order of ${p}`);
    if (step.length) for (const [p, n] of Object.entries(step.length)) {
      const v = lookup(last, p);
      assert.equal(Array.isArray(v) || typeof v === 'string' ? (v as unknown[]).length : Object.keys(v as object).length, n, `${where}: length of ${p}`);
    }
    if (step.set) for (const [p, k] of Object.entries(step.set)) stash.set(String(k), lookup(last, p));
    if (step.is_true !== undefined) assert.ok(lookup(last, step.is_true), `${where}: ${step.is_true} is true`);
    if (step.is_false !== undefined) assert.ok(!lookup(last, step.is_false), `${where}: ${step.is_false} is false`);
  }
}

/** Deletes every index and template (the state every case starts from). */
export async function wipe(base: string): Promise<void> {
  await fetch(`${base}/_all`, { method: 'DELETE' });
  await fetch(`${base}/_template/*`, { method: 'DELETE' });
}

/**
 * Registers one node:test suite per `*.yml` file in `dir`, all run against one real documents server; each case
 * starts from an empty cluster.
 */
export function runCaseFiles(dir: URL): void {
  let s: TestServer;
  before(async () => { s = await startServer({ services: ['documents'], workers: 2 }); });
  after(async () => { await s?.destroy(); });
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yml')).sort()) {
    describe(file, () => {
      for (const [name, steps] of loadCases(readFileSync(new URL(file, dir), 'utf8'))) {
        test(name, async () => {
          await wipe(s.esUrl);
          await runCase(s.esUrl, name, steps);
        });
      }
    });
  }
}
