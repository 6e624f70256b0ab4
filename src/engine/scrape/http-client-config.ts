/**
 * The HTTP client settings every outbound section of prometheus.yml shares (Prometheus's
 * `common/config.HTTPClientConfig` v0.39): authentication (basic, `authorization`, OAuth 2.0 client
 * credentials, the deprecated `bearer_token[_file]`), TLS, proxy, redirects and HTTP/2. Parsed with the same
 * checks and messages, and marshalled back in the same field order with secrets hidden, so
 * `/api/v1/status/config` reads like Prometheus's and loads again.
 */
import { asList, asObj, bad, bool, checkFields, compact, resolvePath, str, stringMap, type Obj } from './config-yaml.ts';

export interface TlsConfig {
  caFile: string; certFile: string; keyFile: string; serverName: string; insecureSkipVerify: boolean;
  /** `TLS10`…`TLS13`, or '' for the default (1.2, as Go). */
  minVersion: string; maxVersion: string;
}

export interface BasicAuth { username: string; password: string; passwordFile: string }
export interface AuthorizationConfig { type: string; credentials: string; credentialsFile: string }

export interface OAuth2Config {
  clientId: string; clientSecret: string; clientSecretFile: string; scopes: string[]; tokenUrl: string;
  endpointParams: Record<string, string>; tls: TlsConfig; proxyUrl: string;
}

export interface HttpClientConfig {
  basicAuth: BasicAuth | null;
  authorization: AuthorizationConfig | null;
  oauth2: OAuth2Config | null;
  proxyUrl: string;
  proxyConnectHeader: Record<string, string[]>;
  tls: TlsConfig;
  followRedirects: boolean;
  /** Accepted and printed; Node's HTTP client speaks HTTP/1.1 only (Prometheus negotiates h2 over TLS only). */
  enableHttp2: boolean;
}

/** The YAML keys of an inlined HTTP client config, for the sections' own field checks. */
export const HTTP_CLIENT_FIELDS = ['basic_auth', 'authorization', 'oauth2', 'bearer_token', 'bearer_token_file',
  'proxy_url', 'proxy_connect_header', 'tls_config', 'follow_redirects', 'enable_http2'] as const;

export const TLS_VERSIONS: Record<string, string> = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' };

export const NO_TLS: TlsConfig = { caFile: '', certFile: '', keyFile: '', serverName: '', insecureSkipVerify: false, minVersion: '', maxVersion: '' };

export function defaultHttpClientConfig(): HttpClientConfig {
  return { basicAuth: null, authorization: null, oauth2: null, proxyUrl: '', proxyConnectHeader: {}, tls: NO_TLS, followRedirects: true, enableHttp2: true };
}

/** Reads the HTTP client fields of section `o`; relative file names resolve against `dir`. */
export function parseHttpClientConfig(o: Obj, dir: string): HttpClientConfig {
  const bearer = str(o.bearer_token), bearerFile = str(o.bearer_token_file);
  const basicAuth = o.basic_auth === undefined || o.basic_auth === null ? null : parseBasicAuth(asObj(o.basic_auth, 'basic_auth'), dir);
  let authorization = o.authorization === undefined || o.authorization === null ? null : parseAuthorization(asObj(o.authorization, 'authorization'), dir);
  const oauth2 = o.oauth2 === undefined || o.oauth2 === null ? null : parseOAuth2(asObj(o.oauth2, 'oauth2'), dir);
  if (bearer !== '' && bearerFile !== '') bad('at most one of bearer_token & bearer_token_file must be configured');
  if (basicAuth && oauth2) bad('at most one of basic_auth, oauth2 & authorization must be configured');
  if ((basicAuth || oauth2) && (bearer !== '' || bearerFile !== '')) bad('at most one of basic_auth, oauth2, bearer_token & bearer_token_file must be configured');
  if (authorization) {
    if (bearer !== '' || bearerFile !== '') bad('authorization is not compatible with bearer_token & bearer_token_file');
    if (basicAuth || oauth2) bad('at most one of basic_auth, oauth2 & authorization must be configured');
  } else if (bearer !== '' || bearerFile !== '') {
    // Prometheus rewrites the deprecated fields into `authorization`, and prints them that way.
    authorization = { type: 'Bearer', credentials: bearer, credentialsFile: resolvePath(dir, bearerFile) };
  }
  const proxyUrl = str(o.proxy_url);
  if (proxyUrl !== '') { try { new URL(proxyUrl); } catch { bad(`parse "${proxyUrl}": invalid URL`); } }
  const proxyConnectHeader: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(asObj(o.proxy_connect_header, 'proxy_connect_header'))) proxyConnectHeader[k] = asList(v, k).map(String);
  if (Object.keys(proxyConnectHeader).length && proxyUrl === '') bad('if proxy_connect_header is configured proxy_url must also be configured');
  return {
    basicAuth, authorization, oauth2, proxyUrl, proxyConnectHeader,
    tls: parseTlsConfig(asObj(o.tls_config, 'tls_config'), dir),
    followRedirects: bool(o.follow_redirects, true, 'follow_redirects'),
    enableHttp2: bool(o.enable_http2, true, 'enable_http2'),
  };
}

function parseBasicAuth(b: Obj, dir: string): BasicAuth {
  checkFields(b, ['username', 'password', 'password_file'], 'config.BasicAuth');
  const out = { username: str(b.username), password: str(b.password), passwordFile: resolvePath(dir, str(b.password_file)) };
  if (out.password !== '' && out.passwordFile !== '') bad('at most one of basic_auth password & password_file must be configured');
  return out;
}

function parseAuthorization(a: Obj, dir: string): AuthorizationConfig {
  checkFields(a, ['type', 'credentials', 'credentials_file'], 'config.Authorization');
  const out = { type: str(a.type, 'Bearer') || 'Bearer', credentials: str(a.credentials), credentialsFile: resolvePath(dir, str(a.credentials_file)) };
  if (out.credentials !== '' && out.credentialsFile !== '') bad('at most one of authorization credentials & credentials_file must be configured');
  if (out.type.toLowerCase() === 'basic') bad('authorization type cannot be set to "basic", use "basic_auth" instead');
  return out;
}

function parseOAuth2(o: Obj, dir: string): OAuth2Config {
  checkFields(o, ['client_id', 'client_secret', 'client_secret_file', 'scopes', 'token_url', 'endpoint_params', 'tls_config', 'proxy_url', 'proxy_connect_header'], 'config.OAuth2');
  const out: OAuth2Config = {
    clientId: str(o.client_id), clientSecret: str(o.client_secret), clientSecretFile: resolvePath(dir, str(o.client_secret_file)),
    scopes: asList(o.scopes, 'scopes').map(String), tokenUrl: str(o.token_url),
    endpointParams: stringMap(o.endpoint_params, 'endpoint_params'),
    tls: parseTlsConfig(asObj(o.tls_config, 'tls_config'), dir), proxyUrl: str(o.proxy_url),
  };
  if (out.clientId === '') bad('oauth2 client_id must be configured');
  if (out.clientSecret === '' && out.clientSecretFile === '') bad('either oauth2 client_secret or client_secret_file must be configured');
  if (out.tokenUrl === '') bad('oauth2 token_url must be configured');
  if (out.clientSecret !== '' && out.clientSecretFile !== '') bad('at most one of oauth2 client_secret & client_secret_file must be configured');
  return out;
}

export function parseTlsConfig(o: Obj, dir: string): TlsConfig {
  checkFields(o, ['ca_file', 'cert_file', 'key_file', 'server_name', 'insecure_skip_verify', 'min_version', 'max_version'], 'config.TLSConfig');
  const version = (v: unknown): string => {
    const s = str(v);
    if (s !== '' && !(s in TLS_VERSIONS)) bad(`unknown TLS version: ${s}`);
    return s;
  };
  const tls: TlsConfig = {
    caFile: resolvePath(dir, str(o.ca_file)), certFile: resolvePath(dir, str(o.cert_file)), keyFile: resolvePath(dir, str(o.key_file)),
    serverName: str(o.server_name), insecureSkipVerify: bool(o.insecure_skip_verify, false, 'insecure_skip_verify'),
    minVersion: version(o.min_version), maxVersion: version(o.max_version),
  };
  if (tls.certFile !== '' && tls.keyFile === '') bad(`client cert file "${tls.certFile}" specified without client key file`);
  if (tls.keyFile !== '' && tls.certFile === '') bad(`client key file "${tls.keyFile}" specified without client cert file`);
  if (tls.minVersion !== '' && tls.maxVersion !== '' && tls.maxVersion < tls.minVersion) {
    bad('tls_config.max_version must be greater than or equal to tls_config.min_version if both are specified');
  }
  return tls;
}

const SECRET = '<secret>';

/** The HTTP client fields in Go's struct order, secrets as `<secret>`, zero values omitted as Go omits them. */
export function marshalHttpClientConfig(c: HttpClientConfig): Obj {
  const out: Obj = {};
  if (c.basicAuth) out.basic_auth = compact({ username: c.basicAuth.username, password: c.basicAuth.password ? SECRET : undefined, password_file: c.basicAuth.passwordFile || undefined });
  if (c.authorization) out.authorization = compact({ type: c.authorization.type, credentials: c.authorization.credentials ? SECRET : undefined, credentials_file: c.authorization.credentialsFile || undefined });
  if (c.oauth2) out.oauth2 = marshalOAuth2(c.oauth2);
  if (c.proxyUrl) out.proxy_url = c.proxyUrl;
  if (Object.keys(c.proxyConnectHeader).length) {
    out.proxy_connect_header = Object.fromEntries(Object.entries(c.proxyConnectHeader).map(([k, v]) => [k, v.map(() => SECRET)]));
  }
  const tls = marshalTlsConfig(c.tls);
  if (tls) out.tls_config = tls;
  out.follow_redirects = c.followRedirects;
  out.enable_http2 = c.enableHttp2;
  return out;
}

function marshalOAuth2(o: OAuth2Config): Obj {
  return compact({
    client_id: o.clientId, client_secret: o.clientSecret ? SECRET : '', client_secret_file: o.clientSecretFile,
    scopes: o.scopes.length ? o.scopes : undefined, token_url: o.tokenUrl,
    endpoint_params: Object.keys(o.endpointParams).length ? o.endpointParams : undefined,
    tls_config: marshalTlsConfig(o.tls), proxy_url: o.proxyUrl || undefined,
  });
}

/**
 * `tls_config`, or undefined when nothing is set. Versions print as their names: Prometheus 2.42 prints the
 * numeric Go constant (`771`), which its own loader then refuses, so the name is the round-trippable choice.
 */
export function marshalTlsConfig(t: TlsConfig): Obj | undefined {
  if (!t.caFile && !t.certFile && !t.keyFile && !t.serverName && !t.insecureSkipVerify && !t.minVersion && !t.maxVersion) return undefined;
  return compact({
    ca_file: t.caFile || undefined, cert_file: t.certFile || undefined, key_file: t.keyFile || undefined,
    server_name: t.serverName || undefined, insecure_skip_verify: t.insecureSkipVerify,
    min_version: t.minVersion || undefined, max_version: t.maxVersion || undefined,
  });
}
