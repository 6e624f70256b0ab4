/**
 * Rule-file validation against the messages of Prometheus 2.42's rulefmt (cases in cases/rule-file-validation.yml,
 * expectations taken from `promtool check rules` on the same files).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { parseRuleFile } from '../../src/engine/rules/rule-file.ts';

interface Case { name: string; file: string; errors?: string[]; rules?: string[][] }
const cases = parse(readFileSync(new URL('./cases/rule-file-validation.yml', import.meta.url), 'utf8')) as Case[];

for (const c of cases) {
  test(`rule file: ${c.name}`, () => {
    const r = parseRuleFile(c.file, 'rules.yml');
    assert.deepEqual(r.errors, (c.errors ?? []).map((e) => `rules.yml: ${e}`));
    if (c.rules) assert.deepEqual(r.groups.map((g) => g.rules.map((x) => `${x.kind} ${x.name}`)), c.rules);
  });
}

test('rule file: parsed fields', () => {
  const r = parseRuleFile(cases[0].file, 'rules.yml');
  const g = r.groups[0];
  assert.equal(g.name, 'example');
  assert.equal(g.intervalMs, 30_000);
  assert.equal(g.limit, 10);
  const [rec, alert] = g.rules;
  assert.deepEqual(rec.labels, [{ name: 'team', value: 'a' }]);
  assert.equal(alert.forMs, 300_000);
  assert.equal(alert.keepFiringForMs, 60_000);
  assert.equal(alert.exprText, 'up == 0');
  assert.equal(alert.expr.kind, 'binary');
  assert.equal(alert.annotationTemplates.length, 1);
});
