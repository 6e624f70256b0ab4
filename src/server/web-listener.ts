/**
 * What one listener takes from its web config flag at start-up: the TLS settings for uWS (web-tls.ts) and
 * the per-request gate (web-gate.ts). An empty flag means plain HTTP with no gate, Tessera's default.
 */
import type { ListenerTlsOptions } from './http.ts';
import { readWebConfig } from './web-config.ts';
import { WebGate, type GateEnvelopes, type GateLog } from './web-gate.ts';
import { listenerTls } from './web-tls.ts';

export interface ListenerWebConfig {
  tls?: ListenerTlsOptions;
  gate?: WebGate;
}

/** Throws WebConfigError (naming the file) for a file that is invalid or asks for what the listener cannot do. */
export function listenerWebConfig(file: string, envelopes: GateEnvelopes, log: GateLog): ListenerWebConfig {
  if (file === '') return {};
  const cfg = readWebConfig(file);
  const warn = (msg: string): void => log.warn(msg);
  const tls = cfg.tls.enabled ? listenerTls(file, cfg.tls, warn, (msg) => log.info(msg)) : undefined;
  // uWS speaks HTTP/1.1 only and offers no ALPN, so HTTP/2 clients fall back to HTTP/1.1 as with `http2: false`.
  if (cfg.http2Explicit && cfg.http2 && tls) warn(`web config file ${file}: http2: true is not supported; the listener speaks HTTP/1.1 only`);
  return { tls, gate: new WebGate(file, cfg, envelopes, log) };
}
