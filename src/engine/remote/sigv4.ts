/**
 * AWS Signature Version 4 for remote write (`remote_write[].sigv4`, as Prometheus signs requests to Amazon
 * Managed Service for Prometheus with service name `aps`): the canonical request (method, URI, sorted query,
 * sorted lower-case headers with `host` and `x-amz-date`, signed-header list, SHA-256 of the body), the
 * string to sign, the HMAC chain of the secret over date, region, service and `aws4_request`, and the
 * `Authorization` header. Credentials come from the config, else the environment (`AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), else the shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`
 * or `~/.aws/credentials`, the config's `profile`, `AWS_PROFILE` or `default`), the AWS SDK's order without its
 * instance-role providers. `role_arn` (STS AssumeRole) is not supported: a send with it fails saying so.
 */
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { SigV4Config } from '../scrape/remote-config.ts';

export interface SigV4Credentials { accessKey: string; secretKey: string; sessionToken: string }

export interface SignableRequest { method: string; url: string; headers: Readonly<Record<string, string>>; body: Uint8Array }

/** The service Prometheus signs remote write for. */
export const APS_SERVICE = 'aps';

/** Headers to add to `req` (`Authorization`, `X-Amz-Date`, and `X-Amz-Security-Token` with a session token). */
export function signV4(req: SignableRequest, region: string, service: string, cred: SigV4Credentials, now: Date): Record<string, string> {
  const amzDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, ''); // 20150830T123600Z
  const day = amzDate.slice(0, 8);
  const url = new URL(req.url);
  const added: Record<string, string> = { 'X-Amz-Date': amzDate };
  if (cred.sessionToken !== '') added['X-Amz-Security-Token'] = cred.sessionToken;

  const headers = new Map<string, string>();
  for (const [k, v] of Object.entries({ ...req.headers, ...added })) {
    const name = k.toLowerCase();
    if (UNSIGNED.has(name)) continue;
    headers.set(name, v.trim().replace(/\s+/g, ' '));
  }
  headers.set('host', url.host);
  const names = [...headers.keys()].sort();
  const signedHeaders = names.join(';');
  const canonical = [
    req.method.toUpperCase(),
    canonicalPath(url.pathname),
    canonicalQuery(url.searchParams),
    names.map((n) => `${n}:${headers.get(n)}\n`).join(''),
    signedHeaders,
    sha256Hex(req.body),
  ].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256Hex(canonical)}`;
  let key: Buffer = hmac(`AWS4${cred.secretKey}`, day);
  key = hmac(key, region);
  key = hmac(key, service);
  key = hmac(key, 'aws4_request');
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  added.Authorization = `AWS4-HMAC-SHA256 Credential=${cred.accessKey}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return added;
}

/** Headers the AWS signers leave out (they may change on the way). */
const UNSIGNED = new Set(['authorization', 'user-agent', 'x-amzn-trace-id', 'expect', 'content-length', 'connection']);

/** Credentials and region for `cfg`; throws naming what is missing. */
export function resolveSigV4(cfg: SigV4Config, env: NodeJS.ProcessEnv = process.env): { region: string; cred: SigV4Credentials } {
  if (cfg.roleArn !== '') throw new Error('sigv4 role_arn (STS AssumeRole) is not supported by Tessera; give access_key/secret_key, the AWS_* environment or a credentials profile');
  const region = cfg.region || env.AWS_REGION || env.AWS_DEFAULT_REGION || '';
  if (region === '') throw new Error('sigv4: no region (set sigv4.region or AWS_REGION)');
  if (cfg.accessKey !== '') return { region, cred: { accessKey: cfg.accessKey, secretKey: cfg.secretKey, sessionToken: '' } };
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    return { region, cred: { accessKey: env.AWS_ACCESS_KEY_ID, secretKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN ?? '' } };
  }
  const file = env.AWS_SHARED_CREDENTIALS_FILE || path.join(homedir(), '.aws', 'credentials');
  const profile = cfg.profile || env.AWS_PROFILE || 'default';
  let text: string;
  try { text = readFileSync(file, 'utf8'); } catch { throw new Error(`sigv4: no credentials (config, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or ${file})`); }
  const p = iniSection(text, profile);
  if (!p.aws_access_key_id || !p.aws_secret_access_key) throw new Error(`sigv4: profile "${profile}" in ${file} has no aws_access_key_id/aws_secret_access_key`);
  return { region, cred: { accessKey: p.aws_access_key_id, secretKey: p.aws_secret_access_key, sessionToken: p.aws_session_token ?? '' } };
}

/** `key = value` pairs of `[section]` in an INI file. */
function iniSection(text: string, section: string): Record<string, string> {
  const out: Record<string, string> = {};
  let inside = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[\s*(.+?)\s*\]$/.exec(line);
    if (head) { inside = head[1] === section; continue; }
    const eq = line.indexOf('=');
    if (inside && eq > 0) out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

/** Each path segment URI-encoded again (services other than S3 sign the encoded path encoded once more). */
function canonicalPath(pathname: string): string {
  return pathname === '' ? '/' : pathname.split('/').map(uriEncode).join('/');
}

function canonicalQuery(q: URLSearchParams): string {
  const pairs = [...q].map(([k, v]) => [uriEncode(k), uriEncode(v)]);
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

/** RFC 3986 unreserved characters kept, everything else %XX (upper case). */
function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}
