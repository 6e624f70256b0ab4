/**
 * The runtime side of an `HttpClientConfig`: the Authorization header for each request (credential and
 * password files are read per request, as Prometheus does, so rotated secrets apply without a reload;
 * OAuth 2.0 client-credentials tokens are fetched and cached until they expire) and the TLS material,
 * read once per client.
 */
import { readFile } from 'node:fs/promises';
import type { HttpClientConfig, OAuth2Config, TlsConfig } from './http-client-config.ts';
import { TLS_VERSIONS } from './http-client-config.ts';
import type { GetOptions, TlsOptions } from './http-get.ts';

export class HttpClient {
  readonly cfg: HttpClientConfig;
  private tls: TlsOptions | null = null;
  private token: { value: string; expiresAtMs: number } | null = null;

  constructor(cfg: HttpClientConfig) {
    this.cfg = cfg;
  }

  /** Headers carrying the configured authentication (none when no auth is configured). */
  async authHeaders(): Promise<Record<string, string>> {
    const c = this.cfg;
    if (c.basicAuth) {
      const pw = c.basicAuth.passwordFile ? await readSecret(c.basicAuth.passwordFile, 'basic auth password file') : c.basicAuth.password;
      return { Authorization: 'Basic ' + Buffer.from(`${c.basicAuth.username}:${pw}`).toString('base64') };
    }
    if (c.authorization) {
      const cred = c.authorization.credentialsFile ? await readSecret(c.authorization.credentialsFile, 'authorization credentials file') : c.authorization.credentials;
      return { Authorization: `${c.authorization.type} ${cred}` };
    }
    if (c.oauth2) return { Authorization: `Bearer ${await this.oauthToken(c.oauth2)}` };
    return {};
  }

  /** Options for `httpGet`: TLS (for https URLs), redirects, proxy. */
  async getOptions(url: string): Promise<GetOptions> {
    return {
      tls: url.startsWith('https:') ? await this.tlsOptions() : undefined,
      followRedirects: this.cfg.followRedirects, proxyUrl: this.cfg.proxyUrl, proxyConnectHeader: this.cfg.proxyConnectHeader,
    };
  }

  async tlsOptions(): Promise<TlsOptions> {
    this.tls ??= await loadTls(this.cfg.tls);
    return this.tls;
  }

  private async oauthToken(o: OAuth2Config): Promise<string> {
    if (this.token && Date.now() < this.token.expiresAtMs) return this.token.value;
    const secret = o.clientSecretFile ? await readSecret(o.clientSecretFile, 'oauth2 client secret file') : o.clientSecret;
    const form = new URLSearchParams({ grant_type: 'client_credentials', ...o.endpointParams });
    if (o.scopes.length) form.set('scope', o.scopes.join(' '));
    const r = await fetch(o.tokenUrl, {
      method: 'POST', body: form.toString(), signal: AbortSignal.timeout(30_000),
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: 'Basic ' + Buffer.from(`${encodeURIComponent(o.clientId)}:${encodeURIComponent(secret)}`).toString('base64'),
      },
    });
    const text = await r.text();
    if (r.status !== 200) throw new Error(`oauth2: cannot fetch token: ${r.status} ${r.statusText}\nResponse: ${text}`);
    const body = JSON.parse(text) as { access_token?: string; expires_in?: number };
    if (!body.access_token) throw new Error('oauth2: server response missing access_token');
    // Renew a little early so a token never expires in flight (golang.org/x/oauth2 uses 10s).
    const lifetimeMs = (body.expires_in ?? 3600) * 1000 - 10_000;
    this.token = { value: body.access_token, expiresAtMs: Date.now() + Math.max(0, lifetimeMs) };
    return this.token.value;
  }
}

async function readSecret(file: string, what: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (e) {
    throw new Error(`unable to read ${what} ${file}: ${(e as Error).message}`);
  }
}

async function loadTls(c: TlsConfig): Promise<TlsOptions> {
  const read = async (f: string): Promise<Buffer | undefined> => {
    if (f === '') return undefined;
    try { return await readFile(f); } catch (e) { throw new Error(`unable to load TLS file ${f}: ${(e as Error).message}`); }
  };
  return {
    ca: await read(c.caFile), cert: await read(c.certFile), key: await read(c.keyFile),
    servername: c.serverName || undefined, rejectUnauthorized: !c.insecureSkipVerify,
    minVersion: (TLS_VERSIONS[c.minVersion] ?? 'TLSv1.2') as TlsOptions['minVersion'],
    maxVersion: (TLS_VERSIONS[c.maxVersion] || undefined) as TlsOptions['maxVersion'],
  };
}
