import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { readWebConfig } from './web-config.ts';
import { WebGate, basicAuth, type GateEnvelopes } from './web-gate.ts';
import type { Admission, RequestHead } from './http.ts';

const envelopes: GateEnvelopes = {
  unauthorized: (_req, user) => ({ status: 401, body: user ?? '-' }),
  configError: () => ({ status: 500 }),
};
const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const head = (auth?: string): RequestHead => ({ method: 'GET', path: '/', rawQuery: '', headers: auth ? { authorization: `Basic ${Buffer.from(auth).toString('base64')}` } : {} });
const status = (a: Admission): number => a.refusal?.status ?? 200;

test('bcrypt runs once per (user, hash, password): the second request is decided synchronously, success or failure', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-gate-'));
  try {
    const file = join(dir, 'web.yml');
    writeFileSync(file, `basic_auth_users:\n  alice: '${bcrypt.hashSync('pw', 4)}'\n`);
    const gate = new WebGate(file, readWebConfig(file), envelopes, quiet);
    const first = gate.admit(head('alice:pw'));
    assert.ok(first instanceof Promise, 'first sight: bcrypt runs');
    assert.equal(status(await first), 200);
    const second = gate.admit(head('alice:pw'));
    assert.ok(!(second instanceof Promise), 'cached');
    assert.equal(status(second as Admission), 200);
    assert.equal(status(await gate.admit(head('alice:wrong'))), 401);
    const again = gate.admit(head('alice:wrong'));
    assert.ok(!(again instanceof Promise), 'failures are cached too');
    assert.equal((again as Admission).refusal?.body, 'alice');
    assert.equal(status(gate.admit(head()) as Admission), 401, 'no credentials: no bcrypt');

    // A new hash for the same user is a new cache key: the old password no longer passes.
    writeFileSync(file, `basic_auth_users:\n  alice: '${bcrypt.hashSync('pw2', 4)}'   # rotated\n`);
    const rotated = gate.admit(head('alice:pw'));
    assert.ok(rotated instanceof Promise);
    assert.equal(status(await rotated), 401);
    assert.equal(status(await gate.admit(head('alice:pw2'))), 200);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Basic credentials are parsed as Go\'s Request.BasicAuth does', () => {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  assert.deepEqual(basicAuth(`Basic ${b64('a:b:c')}`), { user: 'a', password: 'b:c' });
  assert.deepEqual(basicAuth(`bAsIc ${b64('a:')}`), { user: 'a', password: '' });
  assert.equal(basicAuth(`Basic ${b64('no-colon')}`), null);
  assert.equal(basicAuth('Basic !!!!'), null);
  assert.equal(basicAuth(`Bearer ${b64('a:b')}`), null);
  assert.equal(basicAuth(undefined), null);
});
