/**
 * The per-request side of a web config file, as exporter-toolkit's `webHandler` does it: the file is
 * consulted on every request (here: a `stat`, and a re-parse only when it changed), its
 * `http_server_config.headers` are set on the reply, and when `basic_auth_users` is not empty the request
 * must carry matching Basic credentials or get 401 with `WWW-Authenticate`. A file that has become invalid
 * answers every request with 500 until it is fixed, as the toolkit does (it logs and `http.Error`s 500);
 * this is logged once per change of the file. bcrypt (bcryptjs, pure JS) runs once per distinct
 * (user, hash, password) and the outcome — success or failure — is cached, with the toolkit's size (100) and
 * random eviction; comparisons run one at a time, like the toolkit's `bcryptMtx`, so a burst of wrong
 * passwords costs one core's slice at a time rather than the whole event loop.
 */
import { statSync } from 'node:fs';
import type { HttpResponse, RequestHead, Admission } from './http.ts';
import { readWebConfig, type WebConfig } from './web-config.ts';

/** The API's replies for a refused request; `user` is null when no (parsable) credentials were sent. */
export interface GateEnvelopes {
  unauthorized(req: RequestHead, user: string | null): HttpResponse;
  /** The web config file is unreadable or invalid (500). */
  configError(req: RequestHead): HttpResponse;
}

export interface GateLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** The toolkit's bcrypt of "fakepassword": compared against for unknown users so timing does not reveal them. */
const FAKE_HASH = '$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi';
const CACHE_SIZE = 100;
/**
 * bcryptjs, loaded on the first password check: a node without basic auth never loads it (and a checkout whose
 * node_modules predates the dependency still starts without web config files).
 */
let bcryptModule: Promise<typeof import('bcryptjs')> | null = null;
const loadBcrypt = (): Promise<typeof import('bcryptjs')> => (bcryptModule ??= import('bcryptjs'));
const ADMIT: Admission = { refusal: null, headers: null };

export class WebGate {
  private current: WebConfig | null;
  /** stat identity of the file `current` was read from ('' after a failed read). */
  private statKey: string;
  private readonly tlsAtStart: string;
  /** "user\0hash\0password" → whether bcrypt matched. */
  private readonly cache = new Map<string, boolean>();
  private readonly pending = new Map<string, Promise<boolean>>();
  /** Tail of the one-at-a-time bcrypt queue. */
  private bcryptTail: Promise<unknown> = Promise.resolve();

  constructor(private readonly file: string, startConfig: WebConfig, private readonly envelopes: GateEnvelopes, private readonly log: GateLog) {
    this.current = startConfig;
    this.statKey = statKeyOf(file);
    this.tlsAtStart = JSON.stringify(startConfig.tls);
  }

  /** Decides a request from its head (before its body is read). Synchronous unless bcrypt must run. */
  admit(req: RequestHead): Admission | Promise<Admission> {
    const cfg = this.config();
    if (cfg === null) return { refusal: this.envelopes.configError(req), headers: null };
    const headers = Object.keys(cfg.headers).length ? cfg.headers : null;
    if (cfg.users.size === 0) return headers ? { refusal: null, headers } : ADMIT;
    const creds = basicAuth(req.headers.authorization);
    if (creds === null) return this.refuse(req, null, headers);
    const known = cfg.users.get(creds.user);
    const key = `${creds.user}\0${known ?? FAKE_HASH}\0${creds.password}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached && known !== undefined ? { refusal: null, headers } : this.refuse(req, creds.user, headers);
    return this.verify(key, known ?? FAKE_HASH, creds.password).then((ok) =>
      ok && known !== undefined ? { refusal: null, headers } : this.refuse(req, creds.user, headers));
  }

  private refuse(req: RequestHead, user: string | null, headers: Readonly<Record<string, string>> | null): Admission {
    return { refusal: this.envelopes.unauthorized(req, user), headers };
  }

  /** The config in force: re-read when the file's stat identity changed; null while the file is invalid. */
  private config(): WebConfig | null {
    const key = statKeyOf(this.file);
    if (key === this.statKey) return this.current;
    this.statKey = key;
    try {
      this.current = readWebConfig(this.file);
    } catch (err) {
      this.current = null;
      this.log.error('Unable to parse configuration; requests are answered 500 until the web config file is fixed', { file: this.file, err: (err as Error).message });
      return null;
    }
    if (JSON.stringify(this.current.tls) !== this.tlsAtStart) {
      this.log.warn('tls_server_config changed; TLS settings are read at start-up only, restart to apply them', { file: this.file });
    }
    return this.current;
  }

  private verify(key: string, hash: string, password: string): Promise<boolean> {
    let p = this.pending.get(key);
    if (p) return p;
    p = this.bcryptTail.then(loadBcrypt).then((bcrypt) => bcrypt.default.compare(password, hash)).catch(() => false).then((ok) => {
      this.pending.delete(key);
      this.remember(key, ok);
      return ok;
    });
    this.bcryptTail = p;
    this.pending.set(key, p);
    return p;
  }

  /** Caches an outcome; when full, drops about a tenth of the entries at random, as the toolkit's cache does. */
  private remember(key: string, ok: boolean): void {
    if (this.cache.size >= CACHE_SIZE) {
      const keys = [...this.cache.keys()];
      for (let n = Math.max(1, Math.floor(keys.length / 10)); n >= 0; n--) {
        const i = Math.floor(Math.random() * keys.length);
        this.cache.delete(keys[i]);
        keys[i] = keys[keys.length - 1];
        keys.pop();
      }
    }
    this.cache.set(key, ok);
  }
}

/** Identity of the file's current version: cheap to take per request; '' when it cannot be stat'ed. */
function statKeyOf(file: string): string {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return '';
  }
}

/** Go's `Request.BasicAuth`: "Basic " (any case) + base64 of "user:password"; null when absent or malformed. */
export function basicAuth(header: string | undefined): { user: string; password: string } | null {
  if (header === undefined || header.length < 6 || header.slice(0, 6).toLowerCase() !== 'basic ') return null;
  const b64 = header.slice(6);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) return null;
  const text = Buffer.from(b64, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return null;
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}
