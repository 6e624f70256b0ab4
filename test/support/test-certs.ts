/**
 * Test-only X.509 material made with the `openssl` command at test time (nothing private is committed): a
 * CA, a server certificate for localhost/127.0.0.1 signed by it, a client certificate signed by it, and a
 * self-signed "rogue" client certificate. `NO_OPENSSL` is the skip reason when the command is missing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const NO_OPENSSL: string | false = spawnSync('openssl', ['version']).status === 0 ? false
  : 'openssl not installed (Debian package openssl): the TLS tests need it to make test certificates';

export interface TestCerts {
  dir: string;
  ca: string; caKey: string;
  serverCert: string; serverKey: string;
  clientCert: string; clientKey: string;
  rogueCert: string; rogueKey: string;
}

const ossl = (dir: string, args: string[]): void => { execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' }); };
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Makes the certificates in a fresh temporary directory (file names are absolute paths). */
export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-certs-'));
  const p = (f: string): string => join(dir, f);
  ossl(dir, ['req', '-x509', ...EC, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=tessera-test-ca']);
  writeFileSync(p('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  ossl(dir, ['req', ...EC, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost']);
  ossl(dir, ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'server.ext']);
  ossl(dir, ['req', ...EC, '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=tessera-test-client']);
  ossl(dir, ['x509', '-req', '-in', 'client.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.crt', '-days', '2']);
  ossl(dir, ['req', '-x509', ...EC, '-keyout', 'rogue.key', '-out', 'rogue.crt', '-days', '2', '-subj', '/CN=rogue']);
  return {
    dir, ca: p('ca.crt'), caKey: p('ca.key'), serverCert: p('server.crt'), serverKey: p('server.key'),
    clientCert: p('client.crt'), clientKey: p('client.key'), rogueCert: p('rogue.crt'), rogueKey: p('rogue.key'),
  };
}
