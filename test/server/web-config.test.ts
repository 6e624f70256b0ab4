/**
 * `--web.config.file` (metrics) and its siblings `--http.web-config.file` (documents) and
 * `--workflow.web-config.file` (workflow), through the real server: TLS on each listener (Node's https client
 * and curl), basic auth 200/401 in each API's form, response headers, a file changed while running, client
 * certificates, cipher_suites, files refused at start-up, and Debian's real Prometheus scraping Tessera's
 * /metrics over TLS with basic auth. Certificates are made with openssl at test time (test/support/test-certs.ts).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { BIN, startServer, type TestServer } from '../support/server.ts';
import { NO_OPENSSL, makeTestCerts, type TestCerts } from '../support/test-certs.ts';
import { NO_PROMETHEUS, startPrometheus } from '../support/real-prometheus.ts';
import { waitFor } from '../support/wait-for.ts';

const NO_CURL: string | false = spawnSync('curl', ['--version']).status === 0 ? false : 'curl not installed: the curl checks are skipped';
// Cost 4 keeps the tests quick; the cost is part of the hash, as with htpasswd -B -C 4.
const ALICE_HASH = bcrypt.hashSync('alice-pw', 4);
const BOB_HASH = bcrypt.hashSync('bob-pw', 4);

interface Reply { status: number; headers: Record<string, string | string[] | undefined>; body: string }
interface Req { method?: string; auth?: string; body?: string; ca?: string; cert?: string; key?: string; headers?: Record<string, string> }

/** One request with Node's http/https client (a fresh connection each time, so TLS is negotiated each time). */
function call(url: string, o: Req = {}): Promise<Reply> {
  const u = new URL(url);
  const tls = u.protocol === 'https:';
  const send = tls ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const r = send(u, {
      method: o.method ?? 'GET', agent: false, auth: o.auth, headers: o.headers,
      ...(tls ? { ca: o.ca ? readFileSync(o.ca) : undefined, cert: o.cert ? readFileSync(o.cert) : undefined, key: o.key ? readFileSync(o.key) : undefined } : {}),
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    r.on('error', reject);
    r.end(o.body);
  });
}

function curl(args: string[]): { status: number; out: string; err: string } {
  const r = spawnSync('curl', ['-sS', ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status ?? -1, out: r.stdout, err: r.stderr };
}

const https = (url: string): string => url.replace(/^http:/, 'https:');

describe('TLS and basic auth on every listener', { skip: NO_OPENSSL }, () => {
  let certs: TestCerts;
  let server: TestServer;
  let webFile: string;
  before(async () => {
    certs = makeTestCerts();
    webFile = join(certs.dir, 'web.yml');
    // Relative paths are taken from the file's directory, as exporter-toolkit does.
    writeFileSync(webFile, `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n` +
      `http_server_config:\n  headers:\n    X-Frame-Options: deny\n    Strict-Transport-Security: max-age=31536000\n` +
      `basic_auth_users:\n  alice: '${ALICE_HASH}'\n  bob: '${BOB_HASH}'\n`);
    server = await startServer({ args: ['--web.config.file', webFile, '--http.web-config.file', webFile, '--workflow.web-config.file', webFile] });
  });
  after(async () => { await server?.destroy(); if (certs) rmSync(certs.dir, { recursive: true, force: true }); });

  test('metrics: 401 with WWW-Authenticate: Basic without or with wrong credentials, 200 with right ones, headers set on both', async () => {
    const url = `${https(server.promUrl)}/-/healthy`;
    const none = await call(url, { ca: certs.ca });
    assert.equal(none.status, 401);
    assert.equal(none.headers['www-authenticate'], 'Basic');
    assert.equal(none.body, 'Unauthorized\n');
    assert.equal(none.headers['x-frame-options'], 'deny', 'configured headers go on refusals too, as in exporter-toolkit');
    assert.equal((await call(url, { ca: certs.ca, auth: 'alice:nope' })).status, 401);
    assert.equal((await call(url, { ca: certs.ca, auth: 'mallory:alice-pw' })).status, 401);
    const ok = await call(url, { ca: certs.ca, auth: 'alice:alice-pw' });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['x-frame-options'], 'deny');
    assert.equal(ok.headers['strict-transport-security'], 'max-age=31536000');
    // A refused request with a body: the body is drained, the 401 arrives.
    const post = await call(`${https(server.promUrl)}/api/v1/query`, { ca: certs.ca, method: 'POST', body: 'query=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(post.status, 401);
    const q = await call(`${https(server.promUrl)}/api/v1/query`, { ca: certs.ca, auth: 'alice:alice-pw', method: 'POST', body: 'query=1%2B1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(q.status, 200, q.body);
    assert.equal(JSON.parse(q.body).data.result[1], '2');
  });

  test('a body arriving while bcrypt decides: parked and handled when admitted, drained and dropped when refused', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const body = `query=2*3&pad=${'x'.repeat(300_000)}`;
    const url = `${https(server.promUrl)}/api/v1/query`;
    // Credentials not seen before on this listener: the verdict is asynchronous (bcrypt), the body is on its way.
    const wrong = await call(url, { ca: certs.ca, auth: 'bob:not-bobs', method: 'POST', body, headers: form });
    assert.equal(wrong.status, 401);
    const right = await call(url, { ca: certs.ca, auth: 'bob:bob-pw', method: 'POST', body, headers: form });
    assert.equal(right.status, 200, right.body);
    assert.equal(JSON.parse(right.body).data.result[1], '6');
    const es = await call(`${https(server.esUrl)}/web-cfg-idx/_doc/1`, { ca: certs.ca, auth: 'bob:wrong-again', method: 'PUT', body: JSON.stringify({ pad: 'y'.repeat(300_000) }), headers: { 'content-type': 'application/json' } });
    assert.equal(es.status, 401);
    assert.equal(JSON.parse(es.body).error.type, 'security_exception');
  });

  test('metrics: plain HTTP to the TLS listener gets no HTTP answer; a client that does not trust the CA is refused', async () => {
    await assert.rejects(call(`${server.promUrl}/-/healthy`));
    await assert.rejects(call(`${https(server.promUrl)}/-/healthy`, { auth: 'alice:alice-pw' }), /self-signed|unable to verify|certificate/i);
  });

  test('documents: 401 is X-Pack security_exception with the challenge; right credentials get the root document', async () => {
    const none = await call(`${https(server.esUrl)}/_cat/indices?v`, { ca: certs.ca });
    assert.equal(none.status, 401);
    assert.equal(none.headers['www-authenticate'], 'Basic realm="security" charset="UTF-8"');
    const challenge = { 'WWW-Authenticate': 'Basic realm="security" charset="UTF-8"' };
    assert.deepEqual(JSON.parse(none.body), {
      error: {
        root_cause: [{ type: 'security_exception', reason: 'missing authentication token for REST request [/_cat/indices?v]', header: challenge }],
        type: 'security_exception', reason: 'missing authentication token for REST request [/_cat/indices?v]', header: challenge,
      },
      status: 401,
    });
    const wrong = await call(`${https(server.esUrl)}/`, { ca: certs.ca, auth: 'alice:nope' });
    assert.equal(wrong.status, 401);
    assert.equal(JSON.parse(wrong.body).error.reason, 'unable to authenticate user [alice] for REST request [/]');
    const head = await call(`${https(server.esUrl)}/`, { ca: certs.ca, method: 'HEAD' });
    assert.equal(head.status, 401);
    const ok = await call(`${https(server.esUrl)}/`, { ca: certs.ca, auth: 'alice:alice-pw' });
    assert.equal(ok.status, 200);
    assert.ok(JSON.parse(ok.body).version, ok.body);
  });

  test('workflow: 401 in the workflow envelope, 200 with credentials', async () => {
    const none = await call(`${https(server.flowUrl)}/no-such-route`, { ca: certs.ca });
    assert.equal(none.status, 401);
    assert.equal(none.headers['www-authenticate'], 'Basic');
    assert.equal(JSON.parse(none.body).success, false);
    const ok = await call(`${https(server.flowUrl)}/no-such-route`, { ca: certs.ca, auth: 'alice:alice-pw' });
    assert.equal(ok.status, 404, 'past the gate, the router answers');
  });

  test('curl over TLS with --cacert and -u on each listener', { skip: NO_CURL }, () => {
    for (const base of [server.promUrl, server.esUrl, server.flowUrl]) {
      const url = `${https(base)}/`;
      const denied = curl(['--cacert', certs.ca, '-o', '/dev/null', '-w', '%{http_code}', url]);
      assert.equal(denied.out, '401', `${url}: ${denied.err}`);
      const ok = curl(['--cacert', certs.ca, '-u', 'alice:alice-pw', '-o', '/dev/null', '-w', '%{http_code} %{ssl_verify_result}', url]);
      assert.match(ok.out, /^(200|302|404) 0$/, `${url}: ${ok.err}`);
    }
    const metrics = curl(['--cacert', certs.ca, '-u', 'alice:alice-pw', `${https(server.promUrl)}/metrics`]);
    assert.equal(metrics.status, 0, metrics.err);
    assert.match(metrics.out, /^# HELP /m);
  });

  test('real Prometheus 2.42 scrapes /metrics over TLS with basic auth', { skip: NO_PROMETHEUS }, async () => {
    const target = new URL(server.promUrl).host;
    const prom = await startPrometheus(`scrape_configs:
  - job_name: tessera-tls
    scrape_interval: 1s
    scheme: https
    tls_config: {ca_file: "${certs.ca}", server_name: localhost}
    basic_auth: {username: alice, password: alice-pw}
    static_configs: [{targets: ["${target}"]}]
  - job_name: tessera-no-auth
    scrape_interval: 1s
    scheme: https
    tls_config: {ca_file: "${certs.ca}", server_name: localhost}
    static_configs: [{targets: ["${target}"]}]
`);
    try {
      const q = async (expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> => {
        const body = await (await fetch(`${prom.url}/api/v1/query?query=${encodeURIComponent(expr)}`)).json() as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
        return body.data.result;
      };
      const up = await waitFor('up for both jobs', async () => { const r = await q('up'); return r.length === 2 ? r : undefined; }, 60_000);
      const byJob = Object.fromEntries(up.map((s) => [s.metric.job, s.value[1]]));
      assert.deepEqual(byJob, { 'tessera-tls': '1', 'tessera-no-auth': '0' });
      const scraped = await q('count({job="tessera-tls", __name__=~"tessera_.*"})');
      assert.ok(Number(scraped[0]?.value[1]) > 0, 'Tessera\'s own families arrived');
      const targets = await (await fetch(`${prom.url}/api/v1/targets`)).json() as { data: { activeTargets: { labels: { job: string }; lastError: string }[] } };
      const noAuth = targets.data.activeTargets.find((t) => t.labels.job === 'tessera-no-auth');
      assert.match(noAuth!.lastError, /401/);
    } finally {
      await prom.stop();
    }
  });
});

describe('a web config file changed while running', () => {
  let server: TestServer;
  let webFile: string;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tessera-webcfg-'));
    webFile = join(dir, 'web.yml');
    writeFileSync(webFile, `basic_auth_users:\n  alice: '${ALICE_HASH}'\n`);
    server = await startServer({ services: ['metrics'], args: ['--web.config.file', webFile] });
  });
  after(async () => { await server?.destroy(); rmSync(dir, { recursive: true, force: true }); });

  test('each change takes effect on the next request; an invalid file answers 500 until fixed', async () => {
    const url = `${server.promUrl}/-/healthy`;
    assert.equal((await call(url)).status, 401, 'plain HTTP with basic auth only: no TLS section');
    assert.equal((await call(url, { auth: 'alice:alice-pw' })).status, 200);

    writeFileSync(webFile, `basic_auth_users:\n  bob: '${BOB_HASH}'\nhttp_server_config:\n  headers:\n    X-Content-Type-Options: nosniff\n`);
    assert.equal((await call(url, { auth: 'alice:alice-pw' })).status, 401, 'alice removed');
    const bob = await call(url, { auth: 'bob:bob-pw' });
    assert.equal(bob.status, 200);
    assert.equal(bob.headers['x-content-type-options'], 'nosniff');

    writeFileSync(webFile, 'basic_auth_users: [this is not a mapping\n');
    const broken = await call(url, { auth: 'bob:bob-pw' });
    assert.equal(broken.status, 500, 'exporter-toolkit answers 500 while the file cannot be parsed');
    assert.equal(broken.body, 'Internal Server Error\n');
    // The child logs before it answers, but its stderr pipe and the response socket are separate streams:
    // under load the response can reach the test first, so wait for the line rather than read it at once.
    await waitFor('the parse error in the child\'s stderr', () => /Unable to parse configuration/.test(server.stderr()));

    writeFileSync(webFile, '');
    assert.equal((await call(url)).status, 200, 'an empty file: no users, no auth');
  });
});

describe('client certificates and cipher_suites', { skip: NO_OPENSSL }, () => {
  let certs: TestCerts;
  let server: TestServer;
  before(async () => {
    certs = makeTestCerts();
    const webFile = join(certs.dir, 'web-mtls.yml');
    writeFileSync(webFile, `tls_server_config:\n  cert_file: ${certs.serverCert}\n  key_file: ${certs.serverKey}\n` +
      `  client_auth_type: VerifyClientCertIfGiven\n  client_ca_file: ${certs.ca}\n` +
      `  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]\n  prefer_server_cipher_suites: true\n`);
    server = await startServer({ services: ['metrics'], args: ['--web.config.file', webFile] });
  });
  after(async () => { await server?.destroy(); if (certs) rmSync(certs.dir, { recursive: true, force: true }); });

  test('VerifyClientCertIfGiven: no certificate and a CA-signed one pass; a certificate from another CA is refused', async () => {
    const url = `${https(server.promUrl)}/-/healthy`;
    assert.equal((await call(url, { ca: certs.ca })).status, 200);
    assert.equal((await call(url, { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey })).status, 200);
    await assert.rejects(call(url, { ca: certs.ca, cert: certs.rogueCert, key: certs.rogueKey }));
  });

  test('cipher_suites limits TLS 1.2 to the listed suite (mapped to its OpenSSL name)', { skip: NO_CURL }, () => {
    const url = `${https(server.promUrl)}/-/healthy`;
    const listed = curl(['--cacert', certs.ca, '--tls-max', '1.2', '--ciphers', 'ECDHE-ECDSA-AES128-GCM-SHA256', url]);
    assert.equal(listed.status, 0, listed.err);
    const other = curl(['--cacert', certs.ca, '--tls-max', '1.2', '--ciphers', 'ECDHE-ECDSA-AES256-GCM-SHA384', url]);
    assert.notEqual(other.status, 0, 'a TLS 1.2 suite not listed is refused');
    const tls13 = curl(['--cacert', certs.ca, '--tlsv1.3', url]);
    assert.equal(tls13.status, 0, `TLS 1.3 suites are not configurable (as in Go): ${tls13.err}`);
  });
});

describe('settings uWS cannot express, served by the node:tls front', { skip: NO_OPENSSL }, () => {
  let certs: TestCerts;
  let server: TestServer;
  before(async () => {
    certs = makeTestCerts();
    const tlsHead = `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n`;
    const file = (name: string, text: string): string => { const f = join(certs.dir, name); writeFileSync(f, text); return f; };
    // Metrics: mutual TLS (the usual operator's setting) plus basic auth, TLS 1.2 only, NIST curves only. With
    // TLS 1.2, OpenSSL also wants the ECDSA certificate's curve (P-256 here) in the list.
    const metrics = file('metrics.yml', `${tlsHead}  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n` +
      `  max_version: TLS12\n  curve_preferences: [CurveP256, CurveP384]\nbasic_auth_users:\n  alice: '${ALICE_HASH}'\n`);
    // Documents: any certificate, unverified, but one is required.
    const docs = file('docs.yml', `${tlsHead}  client_auth_type: RequireAnyClientCert\n`);
    // Workflow: a certificate is asked for, never required or verified; TLS 1.3 only.
    const flow = file('flow.yml', `${tlsHead}  client_auth_type: RequestClientCert\n  min_version: TLS13\n`);
    server = await startServer({ args: ['--web.config.file', metrics, '--http.web-config.file', docs, '--workflow.web-config.file', flow] });
  });
  after(async () => { await server?.destroy(); if (certs) rmSync(certs.dir, { recursive: true, force: true }); });

  test('RequireAndVerifyClientCert: no certificate or one from another CA is refused; a CA-signed one plus credentials gets 200', async () => {
    const url = `${https(server.promUrl)}/-/healthy`;
    await assert.rejects(call(url, { ca: certs.ca, auth: 'alice:alice-pw' }));
    await assert.rejects(call(url, { ca: certs.ca, auth: 'alice:alice-pw', cert: certs.rogueCert, key: certs.rogueKey }));
    const mine = { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey };
    assert.equal((await call(url, mine)).status, 401, 'the certificate does not replace basic auth');
    assert.equal((await call(url, { ...mine, auth: 'alice:alice-pw' })).status, 200);
    // A body of several TLS records travels through the front too.
    const q = await call(`${https(server.promUrl)}/api/v1/query`, { ...mine, auth: 'alice:alice-pw', method: 'POST', body: `query=1%2B1&pad=${'x'.repeat(200_000)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(q.status, 200, q.body);
    assert.equal(JSON.parse(q.body).data.result[1], '2');
  });

  test('max_version TLS12 and curve_preferences are enforced', { skip: NO_CURL }, () => {
    const url = `${https(server.promUrl)}/-/healthy`;
    const mine = ['--cacert', certs.ca, '--cert', certs.clientCert, '--key', certs.clientKey, '-u', 'alice:alice-pw'];
    const plain = curl([...mine, url]);
    assert.equal(plain.status, 0, plain.err);
    assert.notEqual(curl([...mine, '--tlsv1.3', url]).status, 0, 'TLS 1.3 refused');
    assert.notEqual(curl([...mine, '--curves', 'X25519', url]).status, 0, 'a curve not listed is refused');
    assert.equal(curl([...mine, '--curves', 'P-256', url]).status, 0);
  });

  test('RequireAnyClientCert: any certificate, even from another CA, passes; none is refused', async () => {
    const url = `${https(server.esUrl)}/`;
    await assert.rejects(call(url, { ca: certs.ca }));
    assert.equal((await call(url, { ca: certs.ca, cert: certs.rogueCert, key: certs.rogueKey })).status, 200);
  });

  test('RequestClientCert with min_version TLS13: no certificate passes; TLS 1.2 is refused', { skip: NO_CURL }, async () => {
    const url = `${https(server.flowUrl)}/no-such-route`;
    assert.equal((await call(url, { ca: certs.ca })).status, 404);
    assert.equal((await call(url, { ca: certs.ca, cert: certs.rogueCert, key: certs.rogueKey })).status, 404);
    assert.notEqual(curl(['--cacert', certs.ca, '--tls-max', '1.2', url]).status, 0);
  });

  test('real Prometheus 2.42 scrapes /metrics with a client certificate and basic auth', { skip: NO_PROMETHEUS }, async () => {
    const target = new URL(server.promUrl).host;
    const prom = await startPrometheus(`scrape_configs:
  - job_name: tessera-mtls
    scrape_interval: 1s
    scheme: https
    tls_config: {ca_file: "${certs.ca}", cert_file: "${certs.clientCert}", key_file: "${certs.clientKey}", server_name: localhost}
    basic_auth: {username: alice, password: alice-pw}
    static_configs: [{targets: ["${target}"]}]
  - job_name: tessera-no-cert
    scrape_interval: 1s
    scheme: https
    tls_config: {ca_file: "${certs.ca}", server_name: localhost}
    basic_auth: {username: alice, password: alice-pw}
    static_configs: [{targets: ["${target}"]}]
`);
    try {
      const up = await waitFor('up for both jobs', async () => {
        const body = await (await fetch(`${prom.url}/api/v1/query?query=up`)).json() as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
        return body.data.result.length === 2 ? body.data.result : undefined;
      }, 60_000);
      assert.deepEqual(Object.fromEntries(up.map((r) => [r.metric.job, r.value[1]])), { 'tessera-mtls': '1', 'tessera-no-cert': '0' });
    } finally {
      await prom.stop();
    }
  });
});

describe('a web config file that cannot be used stops start-up with exit 2 and a one-line message naming it', { skip: NO_OPENSSL }, () => {
  let certs: TestCerts;
  before(() => { certs = makeTestCerts(); });
  after(() => { if (certs) rmSync(certs.dir, { recursive: true, force: true }); });

  const cases: [string, string, (c: TestCerts) => string, RegExp][] = [
    ['unknown key', '--web.config.file', () => 'basic_auth_user:\n  alice: x\n', /field basic_auth_user not found/],
    ['not a bcrypt hash', '--web.config.file', () => 'basic_auth_users:\n  alice: plain-text\n', /user "alice": crypto\/bcrypt: hashedSecret too short/],
    ['header that cannot be configured', '--web.config.file', () => 'http_server_config:\n  headers:\n    Server: me\n', /HTTP header "Server" can not be configured/],
    ['X-Frame-Options value', '--http.web-config.file', () => 'http_server_config:\n  headers:\n    X-Frame-Options: allow\n', /invalid value for X-Frame-Options/],
    ['cert without key', '--workflow.web-config.file', (c) => `tls_server_config:\n  cert_file: ${c.serverCert}\n`, /missing key_file/],
    ['key not matching the certificate', '--web.config.file', (c) => `tls_server_config:\n  cert_file: ${c.serverCert}\n  key_file: ${c.clientKey}\n`, /failed to load X509KeyPair/],
    ['unknown cipher', '--web.config.file', (c) => `tls_server_config:\n  cert_file: ${c.serverCert}\n  key_file: ${c.serverKey}\n  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n`, /unknown cipher: TLS_RSA_WITH_RC4_128_SHA/],
    ['max_version TLS11 (TLS 1.0/1.1 are never offered)', '--web.config.file', (c) => `tls_server_config:\n  cert_file: ${c.serverCert}\n  key_file: ${c.serverKey}\n  max_version: TLS11\n`, /max_version TLS11: TLS 1.0 and 1.1 are not offered/],
    ['cipher_suites of TLS 1.3 names only', '--web.config.file', (c) => `tls_server_config:\n  cert_file: ${c.serverCert}\n  key_file: ${c.serverKey}\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n`, /names only TLS 1.3 suites/],
    ['client CA without a policy', '--web.config.file', (c) => `tls_server_config:\n  cert_file: ${c.serverCert}\n  key_file: ${c.serverKey}\n  client_ca_file: ${c.ca}\n`, /Client CA's have been configured without a Client Auth Policy/],
  ];
  for (const [name, flag, text, want] of cases) {
    test(name, () => {
      const file = join(certs.dir, `${name.replace(/\W+/g, '-')}.yml`);
      writeFileSync(file, text(certs));
      const r = spawnSync(process.execPath, [BIN, '--path.data', join(certs.dir, 'data'), '--http.port', '0', '--web.listen-address', '127.0.0.1:0',
        '--workflow.port', '0', '--workers', '1', flag, file], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 2, r.stderr);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.ok(lines[0].includes(file), `names the file: ${lines[0]}`);
      assert.match(lines[0], want);
    });
  }
  test('with -d too: the launcher exits 2 with the same line', () => {
    const r = spawnSync(process.execPath, [BIN, '-d', '--path.data', join(certs.dir, 'data3'), '--services', 'metrics', '--web.listen-address', '127.0.0.1:0',
      '--web.config.file', join(certs.dir, 'absent.yml')], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr.trim(), /^tessera: web config file .*absent\.yml: ENOENT/);
  });
  test('a missing file', () => {
    const r = spawnSync(process.execPath, [BIN, '--path.data', join(certs.dir, 'data2'), '--services', 'metrics', '--web.listen-address', '127.0.0.1:0',
      '--web.config.file', join(certs.dir, 'absent.yml')], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr.trim(), /absent\.yml: ENOENT/);
  });
});
