/**
 * Scrapes through an HTTP proxy, as Prometheus's `proxy_url`: http targets as absolute-URL requests, https
 * targets through a CONNECT tunnel with TLS to the target inside it (verified against the target's CA),
 * proxy credentials from the URL as Basic Proxy-Authorization, `proxy_connect_header` on the CONNECT, and a
 * refused CONNECT reported as Go words it. The proxy and the targets are local servers of this test.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { httpGet } from '../../src/engine/scrape/http-get.ts';
import { loadConfig } from '../../src/engine/scrape/config.ts';
import { buildTargets } from '../../src/engine/scrape/target.ts';
import { ScrapeLoop } from '../../src/engine/scrape/scrape-loop.ts';
import type { IngestSample } from '../../src/engine/scrape/sample-sink.ts';
import { NO_OPENSSL, makeTestCerts, type TestCerts } from '../support/test-certs.ts';

const port = (s: Server): number => (s.address() as AddressInfo).port;
const listen = (s: Server): Promise<void> => new Promise((r) => s.listen(0, '127.0.0.1', () => r()));

describe('proxy_url', { skip: NO_OPENSSL }, () => {
  let certs: TestCerts;
  let target: Server, plain: Server, proxy: Server;
  const seen: { method: string; url: string; headers: IncomingMessage['headers'] }[] = [];
  let refuse = false;
  before(async () => {
    certs = makeTestCerts();
    const body = (_req: IncomingMessage, res: import('node:http').ServerResponse) => { res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' }); res.end('tunnelled_metric{a="1"} 42\n'); };
    target = createHttpsServer({ cert: readFileSync(certs.serverCert), key: readFileSync(certs.serverKey) }, body);
    plain = createServer(body);
    proxy = createServer((req, res) => {
      // Plain proxying of absolute-URL requests (http targets).
      seen.push({ method: req.method!, url: req.url!, headers: req.headers });
      const u = new URL(req.url!);
      const up = connect(Number(u.port), u.hostname, () => {
        up.write(`GET ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nConnection: close\r\n\r\n`);
        up.pipe(res.socket!);
      });
    });
    proxy.on('connect', (req: IncomingMessage, client: Socket) => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers });
      if (refuse) { client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n'); return; }
      const [host, p] = req.url!.split(':');
      const up = connect(Number(p), host, () => { client.write('HTTP/1.1 200 Connection Established\r\n\r\n'); up.pipe(client); client.pipe(up); });
    });
    await Promise.all([listen(target), listen(plain), listen(proxy)]);
  });
  after(() => { target?.close(); plain?.close(); proxy?.close(); });

  test('https target through a CONNECT tunnel, with proxy credentials and proxy_connect_header', async () => {
    seen.length = 0;
    const r = await httpGet(`https://127.0.0.1:${port(target)}/metrics`, {}, 5000, {
      tls: { ca: readFileSync(certs.ca), rejectUnauthorized: true },
      proxyUrl: `http://user:p%40ss@127.0.0.1:${port(proxy)}`, proxyConnectHeader: { 'X-Proxy-Key': ['k1'] },
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.toString(), 'tunnelled_metric{a="1"} 42\n');
    assert.equal(seen.length, 1);
    assert.equal(seen[0].method, 'CONNECT');
    assert.equal(seen[0].url, `127.0.0.1:${port(target)}`);
    assert.equal(seen[0].headers['proxy-authorization'], `Basic ${Buffer.from('user:p@ss').toString('base64')}`);
    assert.equal(seen[0].headers['x-proxy-key'], 'k1');
  });

  test('the target certificate is still verified inside the tunnel', async () => {
    await assert.rejects(httpGet(`https://127.0.0.1:${port(target)}/metrics`, {}, 5000, { tls: { rejectUnauthorized: true }, proxyUrl: `http://127.0.0.1:${port(proxy)}` }),
      /certificate/);
  });

  test('a refused CONNECT fails the scrape with Go\'s proxyconnect message', async () => {
    refuse = true;
    try {
      await assert.rejects(httpGet(`https://127.0.0.1:${port(target)}/metrics`, {}, 5000, { tls: { rejectUnauthorized: false }, proxyUrl: `http://127.0.0.1:${port(proxy)}` }),
        /^Error: Get "https:\/\/127\.0\.0\.1:\d+\/metrics": proxyconnect tcp: 407 Proxy Authentication Required$/);
    } finally { refuse = false; }
  });

  test('a scrape config with scheme https, tls_config and proxy_url scrapes through the proxy; http targets go as absolute URLs', async () => {
    seen.length = 0;
    const cfg = loadConfig(`scrape_configs:
  - job_name: tunnelled
    scheme: https
    proxy_url: http://127.0.0.1:${port(proxy)}
    tls_config: {ca_file: ${certs.ca}}
    static_configs: [{targets: ["127.0.0.1:${port(target)}"]}]
  - job_name: plain
    proxy_url: http://127.0.0.1:${port(proxy)}
    static_configs: [{targets: ["127.0.0.1:${port(plain)}"]}]
`, '/p.yml');
    for (const c of cfg.scrapeConfigs) {
      const got: IngestSample[] = [];
      const loop = new ScrapeLoop(buildTargets(c, c.staticConfigs).active[0], c, { sink: { append: async (s) => { got.push(...s); } }, now: () => 1_700_000_000_000, get: httpGet });
      const r = await loop.scrapeOnce();
      assert.equal(r.health, 'up', `${c.jobName}: ${r.error}`);
      assert.ok(got.some((s) => s.labels.some((l) => l.value === 'tunnelled_metric') && s.v === 42), c.jobName);
    }
    assert.deepEqual(seen.map((x) => x.method), ['CONNECT', 'GET']);
    assert.equal(seen[1].url, `http://127.0.0.1:${port(plain)}/metrics`);
  });
});
