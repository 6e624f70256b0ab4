/**
 * Where a webhook may go. A workflow author could otherwise make the node call its own localhost-only APIs
 * (a webhook created a document in the documents API) or anything on the private network: targets that
 * resolve to loopback, private (RFC 1918, unique-local), link-local, CGNAT, unspecified or multicast
 * addresses are refused unless `--workflow.webhook.allow-private-targets` is set. Every address the name
 * resolves to is checked. (The connection resolves the name again; a name that changes its answer between
 * the two lookups is not covered.)
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Why `address` (IPv4 or IPv6 text) is not a public address, or null when it is. */
export function nonPublicReason(address: string): string | null {
  if (isIP(address) === 4) return v4Reason(address.split('.').map(Number));
  const a = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return v4Reason(mapped[1].split('.').map(Number));
  if (a === '::1') return 'loopback';
  if (a === '::') return 'unspecified';
  const first = parseInt(a.split(':')[0] || '0', 16);
  if ((first & 0xfe00) === 0xfc00) return 'private';
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  if ((first & 0xff00) === 0xff00) return 'multicast';
  return null;
}

function v4Reason([a, b]: number[]): string | null {
  if (a === 127) return 'loopback';
  if (a === 0) return 'unspecified';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 100 && b >= 64 && b <= 127) return 'private';
  if (a === 169 && b === 254) return 'link-local';
  if (a >= 224) return 'multicast or reserved';
  return null;
}

/** Null when `url` may be called; otherwise why not (a refusal is final, not retried). */
export async function webhookTargetRefusal(url: string, allowPrivate: boolean): Promise<string | null> {
  if (allowPrivate) return null;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((r) => r.address);
  for (const address of addresses) {
    const reason = nonPublicReason(address);
    if (reason !== null) {
      return `webhook target ${host} resolves to a ${reason} address (${address}); set --workflow.webhook.allow-private-targets to allow it`;
    }
  }
  return null;
}
