/**
 * Elasticsearch's `Warning` response header (RFC 7234 warn-code 299, as its DeprecationLogger writes it): agent
 * `Elasticsearch-<version>-<build hash>`, the quoted text, and the quoted RFC 7231 date.
 */
import { ES_VERSION } from './banner.ts';

export function warningHeader(text: string, now: Date): string {
  const quoted = text.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  return `299 Elasticsearch-${ES_VERSION.number}-${ES_VERSION.build_hash} "${quoted}" "${now.toUTCString()}"`;
}
