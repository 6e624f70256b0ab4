/**
 * SigV4 against vectors of AWS's Signature Version 4 test suite (service "service", region us-east-1, the
 * suite's example key pair, 2015-08-30T12:36:00Z), then credential resolution from config, environment and
 * the shared credentials file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resolveSigV4, signV4 } from './sigv4.ts';

const CRED = { accessKey: 'AKIDEXAMPLE', secretKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: '' };
const WHEN = new Date('2015-08-30T12:36:00Z');
const EMPTY = new Uint8Array(0);
const auth = (sig: string, signed = 'host;x-amz-date') =>
  `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=${signed}, Signature=${sig}`;

const CASES: { name: string; headers: Record<string, string>; signed?: string; sig: string }[] = [
  { name: 'get-vanilla', headers: {}, sig: '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31' },
  { name: 'get-header-key-duplicate (values joined)', headers: { 'My-Header1': 'value2,value2,value1' }, signed: 'host;my-header1;x-amz-date', sig: 'c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea' },
  { name: 'get-header-value-multiline (folded)', headers: { 'My-Header1': 'value1,value2,value3' }, signed: 'host;my-header1;x-amz-date', sig: 'ba17b383a53190154eb5fa66a1b836cc297cc0a3d70a5d00705980573d8ff790' },
];

for (const c of CASES) {
  test(`sigv4 test suite: ${c.name}`, () => {
    const h = signV4({ method: 'GET', url: 'https://example.amazonaws.com/', headers: c.headers, body: EMPTY }, 'us-east-1', 'service', CRED, WHEN);
    assert.equal(h['X-Amz-Date'], '20150830T123600Z');
    assert.equal(h.Authorization, auth(c.sig, c.signed));
    assert.equal(h['X-Amz-Security-Token'], undefined);
  });
}

test('a session token is sent and signed; the body is part of the signature', () => {
  const req = { method: 'POST', url: 'https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-1/api/v1/remote_write', headers: { 'Content-Type': 'application/x-protobuf' }, body: new Uint8Array([1, 2, 3]) };
  const h = signV4(req, 'us-east-1', 'aps', { ...CRED, sessionToken: 'TOKEN' }, WHEN);
  assert.equal(h['X-Amz-Security-Token'], 'TOKEN');
  assert.match(h.Authorization, /SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, /);
  const other = signV4({ ...req, body: new Uint8Array([1, 2, 4]) }, 'us-east-1', 'aps', { ...CRED, sessionToken: 'TOKEN' }, WHEN);
  assert.notEqual(other.Authorization, h.Authorization);
});

test('credentials: config, then environment, then the shared credentials file; role_arn is refused', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sigv4-'));
  try {
    const file = path.join(dir, 'credentials');
    writeFileSync(file, '[default]\naws_access_key_id = AKDEFAULT\naws_secret_access_key = s1\n\n[prod]\naws_access_key_id=AKPROD\naws_secret_access_key=s2\naws_session_token = t2\n');
    const cfg = { region: '', accessKey: '', secretKey: '', profile: '', roleArn: '' };
    const env = { AWS_REGION: 'eu-west-1', AWS_SHARED_CREDENTIALS_FILE: file };
    assert.deepEqual(resolveSigV4({ ...cfg, region: 'us-east-2', accessKey: 'AKCFG', secretKey: 's0' }, env), { region: 'us-east-2', cred: { accessKey: 'AKCFG', secretKey: 's0', sessionToken: '' } });
    assert.deepEqual(resolveSigV4(cfg, { ...env, AWS_ACCESS_KEY_ID: 'AKENV', AWS_SECRET_ACCESS_KEY: 'se', AWS_SESSION_TOKEN: 'te' }).cred, { accessKey: 'AKENV', secretKey: 'se', sessionToken: 'te' });
    assert.deepEqual(resolveSigV4(cfg, env), { region: 'eu-west-1', cred: { accessKey: 'AKDEFAULT', secretKey: 's1', sessionToken: '' } });
    assert.deepEqual(resolveSigV4({ ...cfg, profile: 'prod' }, env).cred, { accessKey: 'AKPROD', secretKey: 's2', sessionToken: 't2' });
    assert.throws(() => resolveSigV4({ ...cfg, profile: 'none' }, env), /profile "none"/);
    assert.throws(() => resolveSigV4(cfg, { AWS_SHARED_CREDENTIALS_FILE: file }), /no region/);
    assert.throws(() => resolveSigV4({ ...cfg, roleArn: 'arn:aws:iam::1:role/x' }, env), /role_arn .* not supported/);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
