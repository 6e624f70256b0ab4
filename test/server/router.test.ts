/**
 * The router's matches where a path without captures is looked up whole (`Router.exact`) and where it is
 * walked segment by segment: both must give the answer the walk alone gave.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Router, type RouteMatch } from '../../src/server/router.ts';

const ok = (name: string) => () => ({ status: 200, body: name });

function router(): Router {
  return new Router()
    .add('POST', '/rest/livestream/event', ok('event'))
    .add('GET', '/rest/livestream/:name', ok('capture'))
    .add(['GET', 'PUT'], '/a/b', ok('ab'))
    .add('GET', '/a/:x/c', ok('axc'))
    .add('GET', '/files/*rest', ok('files'))
    .add('GET', '/', ok('root'));
}

function answer(m: RouteMatch): unknown {
  if (m.kind !== 'found') return m;
  return { body: (m.handler({} as never, m.params) as { body: string }).body, params: m.params, pattern: m.pattern };
}

test('a path without captures matches its route, as written or with extra slashes', () => {
  const r = router();
  assert.deepEqual(answer(r.match('POST', '/rest/livestream/event')), { body: 'event', params: {}, pattern: '/rest/livestream/event' });
  assert.deepEqual(answer(r.match('POST', '/rest/livestream/event/')), { body: 'event', params: {}, pattern: '/rest/livestream/event' });
  assert.deepEqual(answer(r.match('POST', '//rest/livestream/event')), { body: 'event', params: {}, pattern: '/rest/livestream/event' });
  assert.deepEqual(answer(r.match('GET', '/')), { body: 'root', params: {}, pattern: '/' });
  assert.deepEqual(answer(r.match('HEAD', '/a/b')), { body: 'ab', params: {}, pattern: '/a/b' });
});

test('a literal route without the method answers 405 with its methods, even where a capture route has it', () => {
  const r = router();
  assert.deepEqual(r.match('GET', '/rest/livestream/event'), { kind: 'method-not-allowed', allowed: ['POST'] });
  assert.deepEqual(r.match('DELETE', '/a/b'), { kind: 'method-not-allowed', allowed: ['GET', 'PUT'] });
});

test('paths beside the literal routes still walk to captures and rests, decoded', () => {
  const r = router();
  assert.deepEqual(answer(r.match('GET', '/rest/livestream/ev%20ent')), { body: 'capture', params: { name: 'ev ent' }, pattern: '/rest/livestream/:name' });
  assert.deepEqual(answer(r.match('GET', '/a/b/c')), { body: 'axc', params: { x: 'b' }, pattern: '/a/:x/c' });
  assert.deepEqual(answer(r.match('GET', '/files/x/y%2Fz')), { body: 'files', params: { rest: 'x/y/z' }, pattern: '/files/*rest' });
  assert.deepEqual(r.match('GET', '/a'), { kind: 'not-found' });
  assert.deepEqual(r.match('POST', '/rest/livestream'), { kind: 'not-found' });
});

test('a literal route added after a capture route at the same place wins over it', () => {
  const r = new Router().add('GET', '/x/:id', ok('id')).add('GET', '/x/list', ok('list'));
  assert.deepEqual(answer(r.match('GET', '/x/list')), { body: 'list', params: {}, pattern: '/x/list' });
  assert.deepEqual(answer(r.match('GET', '/x/7')), { body: 'id', params: { id: '7' }, pattern: '/x/:id' });
});
