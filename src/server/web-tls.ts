/**
 * Turns a web config's `tls_server_config` into what the listener (uWebSockets.js `SSLApp`) can do, and says
 * what it cannot. uWS takes a key, a certificate chain, one CA file and an OpenSSL cipher list, and nothing
 * else: with a CA file it asks for a client certificate and verifies one that is sent, but lets a client that
 * sends none through; its protocol floor is TLS 1.2 and the ceiling TLS 1.3, neither adjustable; the ECDHE
 * groups are the library's defaults. So a setting that would make the listener *stricter* than that (require
 * a client certificate, cap the version, pin curves) is refused at start-up rather than silently not applied,
 * and a setting that asks for something weaker or obsolete is logged and the stricter behaviour kept.
 * README "TLS and basic auth" lists the outcome of every option.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { WebTlsConfig } from './web-config.ts';
import { WebConfigError } from './web-config.ts';

/** What http.ts hands to uWS's SSLApp (file names, as uWS reads the files itself). */
export interface ListenerTls {
  keyFile: string;
  certFile: string;
  /** Clients may present a certificate, which must chain to this CA; '' = none asked for. */
  caFile: string;
  /** OpenSSL cipher list for TLS ≤ 1.2; '' = library default. */
  ciphers: string;
}

/** Go cipher suite name → OpenSSL name, for the TLS ≤ 1.2 suites of Go's `tls.CipherSuites()`. */
const OPENSSL_CIPHER: Record<string, string> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
};

/**
 * The listener settings for `tls`, checking the key pair and CA file as the toolkit's start-up `Validate`
 * does. Throws WebConfigError (naming `file`) for a setting uWS cannot honour; `warn` gets the settings that
 * are accepted with a stricter or no effect.
 */
export function listenerTls(file: string, tls: WebTlsConfig, warn: (msg: string) => void): ListenerTls {
  const refuse = (why: string): never => { throw new WebConfigError(`web config file ${file}: ${why}`); };
  loadKeyPair(tls.certFile, tls.keyFile, refuse);
  if (tls.clientCaFile !== '') {
    try { readFileSync(tls.clientCaFile); } catch (err) { refuse((err as Error).message); }
  }
  let caFile = '';
  switch (tls.clientAuthType) {
    case 'NoClientCert': break;
    case 'VerifyClientCertIfGiven':
      if (tls.clientCaFile === '') refuse('client_auth_type VerifyClientCertIfGiven needs client_ca_file here (Tessera does not verify client certificates against the system roots)');
      caFile = tls.clientCaFile;
      break;
    default:
      refuse(`client_auth_type ${tls.clientAuthType} is not supported: the TLS library (uWebSockets.js) can only ask for a client certificate and verify it when given (VerifyClientCertIfGiven), not require one`);
  }
  if (tls.curvePreferences.length) refuse('curve_preferences is not supported: the TLS library (uWebSockets.js) always offers its default ECDHE groups');
  if (tls.maxVersion !== 'TLS13') refuse(`max_version ${tls.maxVersion} is not supported: the TLS library (uWebSockets.js) always offers TLS 1.3`);
  if (tls.minVersion === 'TLS13') refuse('min_version TLS13 is not supported: the TLS library (uWebSockets.js) always accepts TLS 1.2');
  if (tls.minVersion === 'TLS10' || tls.minVersion === 'TLS11') warn(`web config file ${file}: min_version ${tls.minVersion}: TLS 1.0 and 1.1 are not offered; the minimum is TLS 1.2`);
  // Go 1.17+ ignores PreferServerCipherSuites (Prometheus 2.42 is built with a later Go), so neither value has an effect there either.
  const ciphers = tls.cipherSuites.map((c) => OPENSSL_CIPHER[c]).filter((c) => c !== undefined);
  // Go applies cipher_suites to TLS ≤ 1.2 only; a list of TLS 1.3 names alone would leave TLS 1.2 without a suite.
  if (tls.cipherSuites.length && !ciphers.length) refuse('cipher_suites names only TLS 1.3 suites, which cannot be configured; TLS 1.2 would have none');
  return { keyFile: tls.keyFile, certFile: tls.certFile, caFile, ciphers: ciphers.join(':') };
}

/** The toolkit's `tls.LoadX509KeyPair` check: both files readable PEM, and the key matching the certificate. */
function loadKeyPair(certFile: string, keyFile: string, refuse: (why: string) => never): void {
  try {
    const cert = new X509Certificate(readFileSync(certFile));
    const key = createPrivateKey(readFileSync(keyFile));
    if (!cert.checkPrivateKey(key)) refuse('failed to load X509KeyPair: tls: private key does not match public key');
  } catch (err) {
    if (err instanceof WebConfigError) throw err;
    refuse(`failed to load X509KeyPair: ${(err as Error).message}`);
  }
}
