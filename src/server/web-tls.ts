/**
 * Turns a web config's `tls_server_config` into listener settings. uWebSockets.js's `SSLApp` takes a key, a
 * certificate chain, one CA file and an OpenSSL cipher list, and nothing else: with a CA file it asks for a
 * client certificate and verifies one that is sent, but lets a client that sends none through; its protocol
 * range is TLS 1.2–1.3 and its ECDHE groups the library's defaults, none adjustable. Configs within that are
 * served by uWS directly (the fast path). Anything stricter (require a client certificate, accept one
 * unverified, cap or raise the version, pin curves) is terminated by node:tls in front of uWS instead
 * (tls-front.ts), so no setting is silently dropped. TLS 1.0/1.1 are never offered (logged). README "TLS and
 * basic auth" lists the outcome of every option.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ListenerTlsOptions } from './http.ts';
import type { TlsFrontSettings } from './tls-front.ts';
import type { WebTlsConfig } from './web-config.ts';
import { WebConfigError } from './web-config.ts';

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

/** Go curve name → OpenSSL group name. */
const OPENSSL_GROUP: Record<string, string> = { CurveP256: 'P-256', CurveP384: 'P-384', CurveP521: 'P-521', X25519: 'X25519' };
/** TLS 1.3 suites, kept on in the node:tls path when cipher_suites narrows TLS 1.2 (Go cannot configure them either). */
const TLS13_SUITES = 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256';

/**
 * The listener settings for `tls`, checking the key pair and CA file as the toolkit's start-up `Validate`
 * does. uWS's SSLApp serves what it can express; anything else goes to the node:tls front (`front` set).
 * Throws WebConfigError (naming `file`) for what neither can honour; `warn` gets settings accepted with a
 * stricter or no effect; `info` says which path serves the listener and why.
 */
export function listenerTls(file: string, tls: WebTlsConfig, warn: (msg: string) => void, info: (msg: string) => void): ListenerTlsOptions {
  const refuse = (why: string): never => { throw new WebConfigError(`web config file ${file}: ${why}`); };
  loadKeyPair(tls.certFile, tls.keyFile, refuse);
  if (tls.clientCaFile !== '') {
    try { readFileSync(tls.clientCaFile); } catch (err) { refuse((err as Error).message); }
  }
  // OpenSSL 3 allows TLS 1.0/1.1 only at security level 0; neither path lowers it.
  if (tls.minVersion === 'TLS10' || tls.minVersion === 'TLS11') warn(`web config file ${file}: min_version ${tls.minVersion}: TLS 1.0 and 1.1 are not offered; the minimum is TLS 1.2`);
  if (tls.maxVersion === 'TLS10' || tls.maxVersion === 'TLS11') refuse(`max_version ${tls.maxVersion}: TLS 1.0 and 1.1 are not offered (the minimum is TLS 1.2)`);
  if (tls.minVersion === 'TLS13' && tls.maxVersion === 'TLS12') refuse('min_version TLS13 is above max_version TLS12');
  // Go 1.17+ ignores PreferServerCipherSuites (Prometheus 2.42 is built with a later Go), so neither value has an effect there either.
  const ciphers = tls.cipherSuites.map((c) => OPENSSL_CIPHER[c]).filter((c) => c !== undefined);
  // Go applies cipher_suites to TLS ≤ 1.2 only; a list of TLS 1.3 names alone would leave TLS 1.2 without a suite.
  if (tls.cipherSuites.length && !ciphers.length) refuse('cipher_suites names only TLS 1.3 suites, which cannot be configured; TLS 1.2 would have none');

  const needFront: string[] = [];
  if (tls.clientAuthType === 'VerifyClientCertIfGiven' && tls.clientCaFile === '') needFront.push('VerifyClientCertIfGiven without client_ca_file');
  else if (tls.clientAuthType !== 'NoClientCert' && tls.clientAuthType !== 'VerifyClientCertIfGiven') needFront.push(`client_auth_type ${tls.clientAuthType}`);
  if (tls.minVersion === 'TLS13') needFront.push('min_version TLS13');
  if (tls.maxVersion === 'TLS12') needFront.push('max_version TLS12');
  if (tls.curvePreferences.length) needFront.push('curve_preferences');
  const base = { keyFile: tls.keyFile, certFile: tls.certFile, caFile: '', ciphers: ciphers.join(':'), front: null };
  if (needFront.length === 0) {
    info(`web config file ${file}: TLS served by uWebSockets.js`);
    return { ...base, caFile: tls.clientAuthType === 'VerifyClientCertIfGiven' ? tls.clientCaFile : '' };
  }
  info(`web config file ${file}: TLS terminated by node:tls in front of uWebSockets.js, for ${needFront.join(', ')}`);
  const auth = tls.clientAuthType;
  const front: TlsFrontSettings = {
    keyFile: tls.keyFile, certFile: tls.certFile, caFile: tls.clientCaFile,
    ciphers: ciphers.length ? `${TLS13_SUITES}:${ciphers.join(':')}` : '',
    requestCert: auth !== 'NoClientCert',
    verify: auth === 'RequireAndVerifyClientCert' ? 'always' : auth === 'VerifyClientCertIfGiven' ? 'if-given' : 'never',
    requireCert: auth === 'RequireAndVerifyClientCert' || auth === 'RequireAnyClientCert',
    minVersion: tls.minVersion === 'TLS13' ? 'TLSv1.3' : 'TLSv1.2',
    maxVersion: tls.maxVersion === 'TLS12' ? 'TLSv1.2' : 'TLSv1.3',
    ecdhCurve: tls.curvePreferences.map((c) => OPENSSL_GROUP[c]).join(':'),
  };
  return { ...base, front };
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
