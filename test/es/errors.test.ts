/** The ES error envelope built from engine errors: root cause choice, metadata order, statuses. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OverloadedError, formatMessage } from '../../src/engine/errors.ts';
import { docError, cause, indexNotFound } from '../../src/engine/documents/doc-errors.ts';
import { errorBody, itemError } from '../../src/server/es/errors.ts';

test('index_not_found envelope', () => {
  assert.deepEqual(errorBody(indexNotFound('foo')), {
    error: {
      root_cause: [{ type: 'index_not_found_exception', reason: 'no such index', 'resource.type': 'index_or_alias', 'resource.id': 'foo', index_uuid: '_na_', index: 'foo' }],
      type: 'index_not_found_exception', reason: 'no such index', 'resource.type': 'index_or_alias', 'resource.id': 'foo', index_uuid: '_na_', index: 'foo',
    },
    status: 404,
  });
});

test('a wrapped Java-style cause is not the root cause; an ES one is', () => {
  const e = docError('DOC_MAPPER_PARSING', ['failed to parse field [age] of type [long]'], { cause: cause('DOC_NUMBER_FORMAT', ['For input string: "x"']) });
  const b = errorBody(e);
  assert.equal(b.status, 400);
  assert.deepEqual(b.error.root_cause, [{ type: 'mapper_parsing_exception', reason: 'failed to parse field [age] of type [long]' }]);
  assert.deepEqual(b.error.caused_by, { type: 'number_format_exception', reason: 'For input string: "x"' });
  const s = docError('DOC_SCRIPT_FAILED', [], { cause: cause('DOC_SCRIPT', ['runtime error'], { script_stack: ['a'], script: 'a', lang: 'painless', cause: cause('DOC_SCRIPT_NULL_POINTER', ['']) }) });
  const sb = errorBody(s);
  assert.deepEqual(sb.error.root_cause, [{ type: 'script_exception', reason: 'runtime error', script_stack: ['a'], script: 'a', lang: 'painless' }]);
  assert.deepEqual(Object.keys(sb.error.caused_by as object), ['type', 'reason', 'script_stack', 'script', 'lang', 'caused_by']);
});

test('a full shard queue is 429 es_rejected_execution_exception; bulk items carry no root_cause', () => {
  const b = errorBody(new OverloadedError('OVERLOADED', formatMessage('OVERLOADED', [50000]), {}));
  assert.equal(b.status, 429);
  assert.equal(b.error.type, 'es_rejected_execution_exception');
  const it = itemError(docError('DOC_VERSION_CONFLICT', ['_doc', '1', 'x'], { index_uuid: 'u', shard: '0', index: 'i' }));
  assert.equal(it.status, 409);
  assert.deepEqual(Object.keys(it.error), ['type', 'reason', 'index_uuid', 'shard', 'index']);
});
