import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineError } from '../errors.ts';
import { jsonAction, parseBulk, simpleBulkItem } from './bulk-parse.ts';

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

test('action lines: the common shape is scanned straight into the item that JSON.parse gives; anything else falls back', () => {
  // [line, whether the simple scanner takes it]
  const cases: [string, boolean][] = [
    ['{"index":{"_id":"log-1"}}', true],
    ['{"index":{}}', true],
    ['{"create":{"_index":"logstash-2026.11.27","_type":"doc","_id":"AbC_-9"}}', true],
    ['{"delete":{"_id":"1","version":3,"version_type":"external"}}', true],
    ['{"index":{"_id":"x","if_seq_no":0,"if_primary_term":-1,"routing":"ü €"}}', true],
    ['{"update":{"_id":"1","retry_on_conflict":123456789012345}}', true],
    ['{"index":{"_id":"1","_id":"2"}}', true],
    ['{"index":{"pipeline":"p","_routing":"r2","_version":4,"_version_type":"internal","_retry_on_conflict":1,"_index":"o","_type":"t"}}', true],
    ['{"index":{"routing":"r1","_routing":"r2","_version":4,"version":"5"}}', true],
    ['{"index":{"_id":5}}', true],
    ['{"unknown":{"a":"b"}}', false],
    ['{"index":{"1":"a","b":"c","0":"d"}}', false],
    ['{"index":{"op_type":"create"}}', false],
    ['{"index":{"_id":1234567890123456}}', false],
    ['{"index":{"_id":"a\\"b"}}', false],
    ['{"index":{"_id":"\\u0061"}}', false],
    ['{"index": {"_id":"1"}}', false],
    ['{"index":{"_id":"1"}}\r', false],
    ['{"index":{"version":1.5}}', false],
    ['{"index":{"version":1e3}}', false],
    ['{"index":{"version":01}}', false],
    ['{"index":{"version":-}}', false],
    ['{"index":{"_source":true}}', false],
    ['{"index":{"_source":["a"]}}', false],
    ['{"index":{"routing":null}}', false],
    ['{"index":{"__proto__":"x"}}', false],
    ['{"__proto__":{}}', false],
    ['{"index":{"_id":"1"},"x":1}', false],
    ['{"index":{"_id":"1"}', false],
    ['{"index":{"_id":"1"}}}', false],
    ['{"index":{"_id":"1",}}', false],
    ['{"index":{"_id":"tab\there"}}', false],
    ['{"index":"x"}', false],
    ['[]', false],
  ];
  for (const [line, simple] of cases) {
    const got = simpleBulkItem(line, { index: 'i', type: '_doc' });
    assert.equal(got !== null, simple, line);
    if (got !== null) assert.deepEqual(got, jsonAction(line, 1, { index: 'i', type: '_doc' }), line);
  }
  // Through parseBulk both paths give the same items.
  const body = Buffer.from('{"index":{"_id":"1","routing":"r","version":7}}\n{"a":1}\n{"index": {"_id":"1", "routing":"r", "version":7}}\n{"a":1}\n');
  const [fast, slow] = parseBulk(body, { index: 'i', type: '_doc' });
  assert.deepEqual({ ...fast, source: null }, { ...slow, source: null });
  assert.equal(fast.version, 7);
});

test('a body that is a plain Uint8Array window into a larger buffer parses from its own first byte', () => {
  const text = '{"index":{"_id":"é1"}}\n{"a":1}\n{"delete":{"_id":"2"}}\n';
  const backing = Buffer.from(`xxxx${text}yyyy`);
  const body = new Uint8Array(backing.buffer, backing.byteOffset + 4, Buffer.byteLength(text));
  const items = parseBulk(body, { index: 'i', type: '_doc' });
  assert.deepEqual(items.map((it) => [it.action, it.id]), [['index', 'é1'], ['delete', '2']]);
  assert.equal(Buffer.from(items[0].source!).toString(), '{"a":1}');
});
