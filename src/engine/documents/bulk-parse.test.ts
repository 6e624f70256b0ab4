import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineError } from '../errors.ts';
import { parseBulk } from './bulk-parse.ts';

const b = (s: string): Uint8Array => Buffer.from(s);

test('bulk NDJSON: items, defaults, verbatim sources', () => {
  const items = parseBulk(b('{"index":{"_id":"1","routing":"r"}}\n{ "a" : 1 }\n{"delete":{"_index":"o","_id":"2"}}\n\n{"update":{"_id":"3","retry_on_conflict":2}}\n{"doc":{}}\n'), { index: 'd', type: '_doc' });
  assert.equal(items.length, 3);
  assert.deepEqual([items[0].action, items[0].index, items[0].id, items[0].routing], ['index', 'd', '1', 'r']);
  assert.equal(Buffer.from(items[0].source!).toString(), '{ "a" : 1 }');
  assert.deepEqual([items[1].action, items[1].index, items[1].source], ['delete', 'o', undefined]);
  assert.equal(items[2].retryOnConflict, 2);
});

test('bulk NDJSON: whole-request failures', () => {
  const cases: [string, string][] = [
    ['{"index":{}}\n{}', 'The bulk request must be terminated by a newline [\\n]'],
    ['', 'Validation Failed: 1: no requests added;'],
    ['{"foo":{}}\n{}\n', 'Malformed action/metadata line [1], expected one of [create, delete, index, update] but found [foo]'],
    ['{"index":{}}\n{}\n{}\n', 'Malformed action/metadata line [3], expected FIELD_NAME but found [END_OBJECT]'],
    ['{"index":{"_idx":"1"}}\n{}\n', 'Action/metadata line [1] contains an unknown parameter [_idx]'],
    ['{"index":{}}\n{}\n', 'Validation Failed: 1: index is missing;2: type is missing;'],
  ];
  for (const [body, msg] of cases) {
    assert.throws(() => parseBulk(b(body), {}), (e) => e instanceof EngineError && e.message === msg, JSON.stringify(body));
  }
});
