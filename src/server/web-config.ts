/**
 * The web configuration file of `--web.config.file` (and Tessera's sibling flags for the documents and
 * workflow listeners), in the format of Prometheus's exporter-toolkit as Prometheus 2.42 bundles it (v0.8.2):
 * `tls_server_config`, `http_server_config` and `basic_auth_users`. Parsing is strict like the toolkit's
 * `yaml.UnmarshalStrict` (an unknown key is an error) and the checks and their messages follow its
 * `getConfig`, `validateHeaderConfig`, `validateUsers` and `ConfigToTLSConfig`. What the listener can do with
 * the TLS part is decided in web-tls.ts; this module only says what the file asks for.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from '../engine/codec/yaml.ts';

/** A web config file that cannot be used; the message names the file. */
export class WebConfigError extends Error {}

export const CLIENT_AUTH_TYPES = ['NoClientCert', 'RequestClientCert', 'RequireAnyClientCert', 'VerifyClientCertIfGiven', 'RequireAndVerifyClientCert'] as const;
export type ClientAuthType = typeof CLIENT_AUTH_TYPES[number];
export const TLS_VERSIONS = ['TLS10', 'TLS11', 'TLS12', 'TLS13'] as const;
export type TlsVersion = typeof TLS_VERSIONS[number];
/** The names the toolkit accepts for `curve_preferences` (Go's `tls.CurveID` constants). */
export const CURVES = ['CurveP256', 'CurveP384', 'CurveP521', 'X25519'] as const;

export interface WebTlsConfig {
  /** Absolute paths (relative ones are taken from the config file's directory, as the toolkit does). */
  certFile: string;
  keyFile: string;
  clientCaFile: string;
  clientAuthType: ClientAuthType;
  /** Go cipher suite names, in the order given. */
  cipherSuites: string[];
  curvePreferences: string[];
  minVersion: TlsVersion;
  maxVersion: TlsVersion;
  preferServerCipherSuites: boolean;
  /** True when any of cert_file, key_file, client_auth_type, client_ca_file is set: the listener speaks TLS. */
  enabled: boolean;
}

export interface WebConfig {
  tls: WebTlsConfig;
  http2: boolean;
  /** True when `http2` was written in the file (the toolkit's default is true). */
  http2Explicit: boolean;
  /** Response headers to set, exactly as written (names as configured). */
  headers: Readonly<Record<string, string>>;
  /** user → bcrypt hash; empty: no basic auth. */
  users: ReadonlyMap<string, string>;
}

/**
 * The headers the toolkit lets a config set, with their allowed values (none listed: any value). Private to
 * the toolkit "to ensure consistency in the Prometheus ecosystem"; copied so a file valid there is valid here.
 */
const EXTRA_HTTP_HEADERS: Record<string, readonly string[] | null> = {
  'Strict-Transport-Security': null,
  'X-Content-Type-Options': ['nosniff'],
  'X-Frame-Options': ['deny', 'sameorigin'],
  'X-XSS-Protection': null,
  'Content-Security-Policy': null,
};

/** Go 1.19's `tls.CipherSuites()` names: the only ones the toolkit accepts (others: "unknown cipher"). */
export const GO_CIPHER_SUITES = [
  'TLS_RSA_WITH_AES_128_CBC_SHA', 'TLS_RSA_WITH_AES_256_CBC_SHA', 'TLS_RSA_WITH_AES_128_GCM_SHA256', 'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA', 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
] as const;

const TOP_KEYS = ['tls_server_config', 'http_server_config', 'basic_auth_users'];
const TLS_KEYS = ['cert_file', 'key_file', 'client_auth_type', 'client_ca_file', 'cipher_suites', 'curve_preferences',
  'min_version', 'max_version', 'prefer_server_cipher_suites'];
const HTTP_KEYS = ['http2', 'headers'];

/** Reads and checks `file`; throws WebConfigError naming it. */
export function readWebConfig(file: string): WebConfig {
  let text: string;
  try { text = readFileSync(file, 'utf8'); } catch (err) { throw new WebConfigError(`web config file ${file}: ${(err as Error).message}`); }
  try { return parseWebConfig(text, dirname(file)); } catch (err) { throw new WebConfigError(`web config file ${file}: ${(err as Error).message}`); }
}

/** Parses the YAML text of a web config; relative paths are joined to `dir`. Throws Error with the reason. */
export function parseWebConfig(text: string, dir: string): WebConfig {
  const root = parse(text) ?? {};
  const top = mapping(root, '');
  strictKeys(top, TOP_KEYS, '');
  const tlsIn = mapping(top.tls_server_config ?? {}, 'tls_server_config');
  strictKeys(tlsIn, TLS_KEYS, 'tls_server_config');
  const httpIn = mapping(top.http_server_config ?? {}, 'http_server_config');
  strictKeys(httpIn, HTTP_KEYS, 'http_server_config');
  const tls = parseTls(tlsIn, dir);
  const headers = stringMap(httpIn.headers ?? {}, 'http_server_config.headers');
  validateHeaders(headers);
  const users = new Map(Object.entries(stringMap(top.basic_auth_users ?? {}, 'basic_auth_users')));
  for (const [user, hash] of users) {
    const why = bcryptHashProblem(hash);
    if (why) throw new Error(`basic_auth_users: user ${JSON.stringify(user)}: ${why}`);
  }
  return { tls, http2: bool(httpIn.http2, 'http_server_config.http2', true), http2Explicit: httpIn.http2 !== undefined, headers, users };
}

function parseTls(m: Record<string, unknown>, dir: string): WebTlsConfig {
  const str = (k: string): string => (m[k] === undefined || m[k] === null ? '' : scalarString(m[k], `tls_server_config.${k}`));
  const certFile = str('cert_file'), keyFile = str('key_file'), clientCaFile = str('client_ca_file'), authRaw = str('client_auth_type');
  const cipherSuites = stringList(m.cipher_suites, 'tls_server_config.cipher_suites');
  for (const c of cipherSuites) if (!(GO_CIPHER_SUITES as readonly string[]).includes(c)) throw new Error(`unknown cipher: ${c}`);
  const curvePreferences = stringList(m.curve_preferences, 'tls_server_config.curve_preferences');
  for (const c of curvePreferences) if (!(CURVES as readonly string[]).includes(c)) throw new Error(`unknown curve: ${c}`);
  const version = (k: string, def: TlsVersion): TlsVersion => {
    const v = str(k) || def;
    if (!(TLS_VERSIONS as readonly string[]).includes(v)) throw new Error(`unknown TLS version: ${v}`);
    return v as TlsVersion;
  };
  const enabled = certFile !== '' || keyFile !== '' || authRaw !== '' || clientCaFile !== '';
  // "RequireClientCert" is the toolkit's older name, kept for backwards compatibility.
  const clientAuthType = (authRaw === '' ? 'NoClientCert' : authRaw === 'RequireClientCert' ? 'RequireAnyClientCert' : authRaw) as ClientAuthType;
  const tls: WebTlsConfig = {
    certFile: joinDir(dir, certFile), keyFile: joinDir(dir, keyFile), clientCaFile: joinDir(dir, clientCaFile), clientAuthType,
    cipherSuites, curvePreferences, minVersion: version('min_version', 'TLS12'), maxVersion: version('max_version', 'TLS13'),
    preferServerCipherSuites: bool(m.prefer_server_cipher_suites, 'tls_server_config.prefer_server_cipher_suites', true), enabled,
  };
  if (!enabled) return tls;
  // The toolkit's ConfigToTLSConfig checks, in its order and words.
  if (certFile === '') throw new Error('missing cert_file');
  if (keyFile === '') throw new Error('missing key_file');
  if (!(CLIENT_AUTH_TYPES as readonly string[]).includes(clientAuthType)) throw new Error(`Invalid ClientAuth: ${authRaw}`);
  if (clientCaFile !== '' && clientAuthType === 'NoClientCert') throw new Error("Client CA's have been configured without a Client Auth Policy");
  return tls;
}

function validateHeaders(headers: Record<string, string>): void {
  for (const [k, v] of Object.entries(headers)) {
    if (!(k in EXTRA_HTTP_HEADERS)) throw new Error(`HTTP header ${JSON.stringify(k)} can not be configured`);
    const allowed = EXTRA_HTTP_HEADERS[k];
    if (allowed && !allowed.includes(v)) {
      throw new Error(`invalid value for ${k}. Expected one of: [${allowed.map((a) => JSON.stringify(a)).join(' ')}], but got: ${JSON.stringify(v)}`);
    }
  }
}

/**
 * Why `hash` is not a bcrypt hash, or '' when it is; the checks of Go's `bcrypt.Cost`, which the toolkit runs
 * on every user at start-up (length, `$` prefix, version, cost in 4..31).
 */
export function bcryptHashProblem(hash: string): string {
  if (hash.length < 59) return 'crypto/bcrypt: hashedSecret too short to be a bcrypted password';
  if (hash[0] !== '$') return `crypto/bcrypt: bcrypt hashes must start with '$', but hashedSecret started with '${hash[0]}'`;
  if (hash[1] > '2') return `crypto/bcrypt: bcrypt algorithm version '${hash[1]}' requested is newer than current version '2'`;
  const costAt = hash[2] === '$' ? 3 : 4;
  const cost = Number(hash.slice(costAt, costAt + 2));
  if (!Number.isInteger(cost) || hash[costAt + 2] !== '$') return 'crypto/bcrypt: hashedSecret is not a bcrypt hash (bad cost field)';
  if (cost < 4 || cost > 31) return `crypto/bcrypt: cost ${cost} is outside allowed range (4,31)`;
  return '';
}

function joinDir(dir: string, p: string): string {
  return p === '' || isAbsolute(p) ? p : join(dir, p);
}

function mapping(v: unknown, where: string): Record<string, unknown> {
  if (v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`${where || 'the file'}: expected a mapping`);
  return v as Record<string, unknown>;
}

function strictKeys(m: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(m)) if (!allowed.includes(k)) throw new Error(`field ${k} not found in ${where ? `type ${where}` : 'the web config'}`);
}

function scalarString(v: unknown, where: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new Error(`${where}: expected a string`);
}

function stringMap(v: unknown, where: string): Record<string, string> {
  const m = mapping(v, where);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(m)) out[k] = x === null ? '' : scalarString(x, `${where}.${k}`);
  return out;
}

function stringList(v: unknown, where: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Error(`${where}: expected a list`);
  return v.map((x, i) => scalarString(x, `${where}[${i}]`));
}

function bool(v: unknown, where: string, def: boolean): boolean {
  if (v === undefined || v === null) return def;
  if (typeof v !== 'boolean') throw new Error(`${where}: expected true or false`);
  return v;
}
