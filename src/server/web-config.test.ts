import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseWebConfig, bcryptHashProblem } from './web-config.ts';

const HASH = '$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi';

test('defaults are exporter-toolkit v0.8.2\'s: no TLS, TLS 1.2..1.3, http2 on, server cipher preference on', () => {
  const c = parseWebConfig('', '/etc/tessera');
  assert.equal(c.tls.enabled, false);
  assert.equal(c.tls.minVersion, 'TLS12');
  assert.equal(c.tls.maxVersion, 'TLS13');
  assert.equal(c.tls.preferServerCipherSuites, true);
  assert.equal(c.tls.clientAuthType, 'NoClientCert');
  assert.equal(c.http2, true);
  assert.equal(c.http2Explicit, false);
  assert.equal(c.users.size, 0);
});

test('relative file names are taken from the config file\'s directory; absolute ones are kept', () => {
  const c = parseWebConfig('tls_server_config:\n  cert_file: certs/a.crt\n  key_file: /keys/a.key\n  client_ca_file: ca.crt\n  client_auth_type: RequireClientCert\n', '/etc/tessera');
  assert.equal(c.tls.certFile, '/etc/tessera/certs/a.crt');
  assert.equal(c.tls.keyFile, '/keys/a.key');
  assert.equal(c.tls.clientCaFile, '/etc/tessera/ca.crt');
  assert.equal(c.tls.clientAuthType, 'RequireAnyClientCert', 'the toolkit\'s old name');
  assert.equal(c.tls.enabled, true);
});

test('refusals in the toolkit\'s words', () => {
  const f = (text: string, want: RegExp): void => assert.throws(() => parseWebConfig(text, '/'), want, text);
  f('tls_server_config:\n  cert_file: a\n', /^Error: missing key_file$/);
  f('tls_server_config:\n  key_file: a\n', /^Error: missing cert_file$/);
  f('tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Sometimes\n', /Invalid ClientAuth: Sometimes/);
  f('tls_server_config:\n  min_version: SSL3\n', /unknown TLS version: SSL3/);
  f('tls_server_config:\n  curve_preferences: [P256]\n', /unknown curve: P256/);
  f('tls_server_config:\n  cert: inline\n', /field cert not found in type tls_server_config/);
  f('http_server_config:\n  http2: maybe\n', /http2: expected true or false/);
  f('http_server_config:\n  headers:\n    X-Content-Type-Options: sniff\n', /Expected one of: \["nosniff"\], but got: "sniff"/);
  f(`basic_auth_users:\n  a: '${HASH.replace('$10$', '$03$')}'\n`, /cost 3 is outside allowed range \(4,31\)/);
  f(`basic_auth_users:\n  a: '${HASH.replace('$2y', '$3y')}'\n`, /version '3' requested is newer/);
});

test('bcrypt hashes of every prefix the toolkit accepts', () => {
  for (const p of ['$2a$', '$2b$', '$2y$']) assert.equal(bcryptHashProblem(HASH.replace('$2y$', p)), '');
});
