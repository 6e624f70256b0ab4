/**
 * Table tests for the exposition parser: every case in `cases/exposition.cases` is parsed as text 0.0.4
 * or OpenMetrics and compared sample by sample (labels, value, timestamp) and metadata by metadata, or
 * must fail with a message containing the expected text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseBody, formatSeries, formatSampleValue, isOpenMetrics } from '../../src/engine/exposition/exposition.ts';
import { ExpositionParser, ENTRY_EOF, ENTRY_SERIES } from '../../src/engine/exposition/exposition-parser.ts';
import { ByteKeyTable, hashBytes } from '../../src/engine/codec/byte-key-table.ts';
import { ParseError } from '../../src/engine/errors.ts';

interface Case { name: string; om: boolean; body: string; want: string[]; error: string | null }

function loadCases(): Case[] {
  const text = readFileSync(new URL('./cases/exposition.cases', import.meta.url), 'utf8');
  const cases: Case[] = [];
  for (const chunk of text.split(/^=== /m).slice(1)) {
    const lines = chunk.split('\n');
    const c: Case = { name: lines[0].trim(), om: false, body: '', want: [], error: null };
    let mode: 'body' | 'want' | 'error' = 'body';
    const body: string[] = [];
    for (const line of lines.slice(1)) {
      if (line === '--- want') { mode = 'want'; continue; }
      if (line === '--- error') { mode = 'error'; continue; }
      if (mode !== 'body' && line === 'om') { c.om = true; continue; }
      if (mode === 'body') body.push(line.replace(/<TAB>/g, '\t').replace(/<CR>/g, '\r'));
      else if (mode === 'want' && line.trim() !== '') c.want.push(line);
      else if (mode === 'error' && line.trim() !== '') c.error = line;
    }
    while (body.length && body[body.length - 1] === '') body.pop();
    c.body = body.join('\n') + '\n';
    cases.push(c);
  }
  return cases;
}

function render(body: string, om: boolean): string[] {
  const parsed = parseBody(body, om);
  const out = parsed.samples.map((s) => `${formatSeries(s.labels)} ${formatSampleValue(s.v)}${Number.isNaN(s.t) ? '' : ` ${s.t}`}`);
  for (const [name, m] of parsed.metadata) out.push(`@meta ${name}|${m.type}|${m.help}|${m.unit}`);
  return out;
}

const cases = loadCases();
test('case file is not empty', () => assert.ok(cases.length >= 20, `only ${cases.length} cases`));

for (const c of cases) {
  test(`exposition: ${c.name}`, () => {
    if (c.error !== null) {
      assert.throws(() => render(c.body, c.om), (e: Error) => {
        assert.ok(e.message.includes(c.error!), `message ${JSON.stringify(e.message)} lacks ${JSON.stringify(c.error)}`);
        return true;
      });
      return;
    }
    // Multi-line @meta help text in the case file is joined back with \n.
    const want: string[] = [];
    for (const w of c.want) {
      if (w.startsWith('@') || want.length === 0 || !want[want.length - 1].startsWith('@meta')) want.push(w);
      else want[want.length - 1] += '\n' + w;
    }
    assert.deepEqual(render(c.body, c.om), want);
  });
}

test('series key is the series text as written and labels() is lazy', () => {
  const p = new ExpositionParser('a{x="1"} 1\na{x="1"} 2\n', { openMetrics: false });
  assert.equal(p.next(), ENTRY_SERIES);
  const k1 = p.seriesKey;
  assert.equal(p.next(), ENTRY_SERIES);
  assert.equal(p.seriesKey, k1);
  assert.equal(k1, 'a{x="1"}');
  assert.deepEqual(p.labels(), [{ name: '__name__', value: 'a' }, { name: 'x', value: '1' }]);
  assert.equal(p.next(), ENTRY_EOF);
});

test('expectSeries: the named text followed by a blank skips the label scan; a longer name or another text is scanned', () => {
  const keys = new ByteKeyTable();
  for (const k of ['a{x="1"}', 'foo']) { const b = Buffer.from(k); keys.insert(b, 0, b.length, hashBytes(b, 0, b.length)); }
  const p = new ExpositionParser('a{x="1"} 1\n# HELP foo F.\nfoo_bar 2\nfoo{y="2"} 3\nfoo\t4\na{x="1"}5\n', { openMetrics: false });
  const step = (id: number) => { p.expectSeries(keys, id); return p.next(); };
  assert.equal(step(0), ENTRY_SERIES);
  assert.equal(p.expectedHit, true);
  assert.equal(p.seriesKey, 'a{x="1"}');
  assert.equal(p.value, 1);
  assert.deepEqual(p.labels(), [{ name: '__name__', value: 'a' }, { name: 'x', value: '1' }], 'labels of a matched line');
  assert.notEqual(step(1), ENTRY_SERIES, 'the HELP line');
  assert.equal(p.next(), ENTRY_SERIES, 'the expectation still applies to the next sample line');
  assert.equal(p.expectedHit, false);
  assert.equal(p.seriesKey, 'foo_bar');
  assert.equal(step(1), ENTRY_SERIES);
  assert.equal(p.expectedHit, false);
  assert.equal(p.seriesKey, 'foo{y="2"}');
  assert.deepEqual(p.labels(), [{ name: '__name__', value: 'foo' }, { name: 'y', value: '2' }]);
  assert.equal(step(1), ENTRY_SERIES);
  assert.equal(p.expectedHit, true, 'a tab after the text');
  assert.equal(p.value, 4);
  assert.throws(() => step(0), ParseError, 'the text with no blank after it');
});

test('expectSeries: a matched line is still checked after its series text', () => {
  const keys = new ByteKeyTable();
  const b = Buffer.from('m{k="v"}');
  keys.insert(b, 0, b.length, hashBytes(b, 0, b.length));
  for (const line of ['m{k="v"} x\n', 'm{k="v"} 1 2 3\n', 'm{k="v"} 1 1.5\n']) {
    const p = new ExpositionParser(line, { openMetrics: false });
    p.expectSeries(keys, 0);
    assert.throws(() => p.next(), ParseError, line);
  }
});

test('skipCreated drops _created series of counters only', () => {
  const body = '# TYPE c counter\nc_total 1\nc_created 5\n# TYPE g gauge\ng_created 3\n# EOF\n';
  const p = new ExpositionParser(body, { openMetrics: true, skipCreated: true });
  const seen: string[] = [];
  for (let e = p.next(); e !== ENTRY_EOF; e = p.next()) if (e === ENTRY_SERIES) seen.push(p.seriesKey);
  assert.deepEqual(seen, ['c_total', 'g_created']);
});

test('content negotiation picks OpenMetrics only for its media type', () => {
  assert.equal(isOpenMetrics('application/openmetrics-text; version=1.0.0; charset=utf-8'), true);
  assert.equal(isOpenMetrics('text/plain; version=0.0.4'), false);
  assert.equal(isOpenMetrics(''), false);
  assert.equal(isOpenMetrics('application/json'), false);
});
