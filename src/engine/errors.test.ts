/** Errors cross thread boundaries by their declared category, not by their constructor's name. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConflictError, CorruptionError, EngineError, FormatVersionError, fromWire, InternalError, InvalidArgumentError, LimitExceededError,
  NotFoundError, OverloadedError, ParseError, QueryCanceledError, QueryTimeoutError, toWire,
} from './errors.ts';

test('every category survives toWire → structured clone → fromWire with its class, code and details', () => {
  const errors: EngineError[] = [
    new EngineError('INTERNAL', 'a'), new InvalidArgumentError('INVALID_ARGUMENT', 'b', { path: 'x' }), new NotFoundError('NOT_FOUND', 'c'),
    new ConflictError('CONFLICT', 'd'), new LimitExceededError('LIMIT_EXCEEDED', 'e'), new OverloadedError('OVERLOADED', 'f'),
    new InternalError('INTERNAL', 'g'), new QueryTimeoutError('QUERY_TIMEOUT', 'h'), new QueryCanceledError('QUERY_CANCELED', 'i'),
    new ParseError('PARSE', 'j', { start: 1, end: 2 }), new CorruptionError('f.bin', 12, 'bad crc'), new FormatVersionError('g.bin', 9, 1, 2),
  ];
  for (const e of errors) {
    const wire = structuredClone(toWire(e));
    assert.equal(wire.category, (e.constructor as typeof EngineError).category);
    const back = fromWire(wire);
    assert.equal(back.constructor, e.constructor, wire.category);
    assert.deepEqual([back.code, back.message, back.details], [e.code, e.message, e.details]);
  }
});

test('a subclass travels as its category, and the category is a declared string', () => {
  class SpecialError extends InvalidArgumentError {}
  const wire = toWire(new SpecialError('INVALID_ARGUMENT', 'x'));
  assert.equal(wire.category, 'InvalidArgumentError');
  assert.ok(fromWire(wire) instanceof InvalidArgumentError);
  assert.equal(toWire(new Error('plain')).code, 'INTERNAL');
});
