/** Alert template expansion (cases/templates.yml): Go text/template semantics and Prometheus's functions. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { compileTemplate, expandTemplate } from '../../src/engine/rules/template.ts';

interface Case { tpl: string; value: number; out?: string; error?: string }
const cases = parse(readFileSync(new URL('./cases/templates.yml', import.meta.url), 'utf8')) as Case[];
const query = async (q: string) => (q === 'up'
  ? [{ Labels: { __name__: 'up', instance: 'b' }, Value: 0 }, { Labels: { __name__: 'up', instance: 'a' }, Value: 1 }]
  : []);
const data = (value: number) => ({ Labels: { instance: 'a:1', job: 'x' }, ExternalLabels: { dc: 'eu' }, ExternalURL: 'http://h:9090', Value: value });

for (const c of cases) {
  test(`template ${c.tpl}`, async () => {
    const t = compileTemplate(c.tpl, '__alert_A');
    if (c.error !== undefined) {
      await assert.rejects(expandTemplate(t, data(c.value), query), (e: Error) => e.message.includes(c.error!) && e.message.startsWith('template: __alert_A:1:'));
    } else {
      assert.equal(await expandTemplate(t, data(c.value), query), c.out);
    }
  });
}
