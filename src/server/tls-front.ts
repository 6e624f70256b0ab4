/**
 * TLS terminated by Node's own `tls` module in front of a uWS listener on a private unix socket: the path for
 * the web config settings uWS's `SSLApp` cannot express (requiring a client certificate, accepting one
 * unverified, capping or raising the protocol version, pinning ECDHE curves). Each accepted, handshaken
 * connection is piped byte for byte to the uWS socket, so HTTP parsing, limits and replies stay in http.ts;
 * the cost is one extra copy of every byte through a Node stream. The unix socket lives in a 0700 directory,
 * so no other local user can reach the HTTP side past the TLS checks.
 */
import { createServer, type TLSSocket } from 'node:tls';
import { connect, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';

/** Node `tls` settings derived from a web config (web-tls.ts); file names are read here, once. */
export interface TlsFrontSettings {
  keyFile: string;
  certFile: string;
  /** CA for client certificates; '' = Node's bundled roots (Go uses the system roots). */
  caFile: string;
  /** OpenSSL cipher list (TLS ≤ 1.2 names and TLS 1.3 suites); '' = Node's default. */
  ciphers: string;
  /** Ask the client for a certificate. */
  requestCert: boolean;
  /** A certificate, when required or when given, must verify against the CA. */
  verify: 'always' | 'if-given' | 'never';
  /** The connection is dropped unless the client sent a certificate. */
  requireCert: boolean;
  minVersion: 'TLSv1.2' | 'TLSv1.3';
  maxVersion: 'TLSv1.2' | 'TLSv1.3';
  /** OpenSSL group list (`X25519:P-256`); '' = Node's default. */
  ecdhCurve: string;
}

export interface TlsFront {
  readonly port: number;
  /** Stops accepting; open connections carry on until their upstream closes them (or `destroy`). */
  close(): void;
  /** Cuts every connection still open. */
  destroy(): void;
}

/** Listens on host:port (exclusively, as Node does by default) and forwards to `upstreamPath`. */
export function startTlsFront(host: string, port: number, s: TlsFrontSettings, upstreamPath: string): Promise<TlsFront> {
  const open = new Set<Socket>();
  const server = createServer({
    key: readFileSync(s.keyFile), cert: readFileSync(s.certFile), ca: s.caFile ? readFileSync(s.caFile) : undefined,
    requestCert: s.requestCert,
    // 'if-given' and 'never' are decided after the handshake (OpenSSL's flag would also reject a missing one).
    rejectUnauthorized: s.verify === 'always',
    minVersion: s.minVersion, maxVersion: s.maxVersion,
    ...(s.ciphers ? { ciphers: s.ciphers } : {}),
    ...(s.ecdhCurve ? { ecdhCurve: s.ecdhCurve } : {}),
  }, (tls: TLSSocket) => {
    const given = Object.keys(tls.getPeerCertificate() ?? {}).length > 0;
    if ((s.requireCert && !given) || (s.verify === 'if-given' && given && !tls.authorized)) { tls.destroy(); return; }
    const up = connect(upstreamPath);
    open.add(tls);
    open.add(up);
    const cut = (): void => { tls.destroy(); up.destroy(); open.delete(tls); open.delete(up); };
    tls.on('error', cut).on('close', cut);
    up.on('error', cut).on('close', cut);
    tls.pipe(up);
    up.pipe(tls);
  });
  // A failed handshake (no certificate, wrong CA, no common version or cipher) only ends that connection.
  server.on('tlsClientError', () => {});
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(new Error(`cannot listen on ${host}:${port}: listen tcp ${host}:${port}: bind: ${err.code === 'EADDRINUSE' ? 'address already in use' : err.message}`));
    });
    server.listen({ host, port, exclusive: true }, () => {
      resolve({
        port: (server.address() as { port: number }).port,
        close: () => { server.close(); },
        destroy: () => { for (const c of open) c.destroy(); open.clear(); },
      });
    });
  });
}
