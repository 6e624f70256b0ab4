/**
 * The `skip` section: a version range (Tessera is treated as the Elasticsearch version it imitates, 6.8.0),
 * `all`, or `features` the runner lacks. Returns the reason to skip, or null to run.
 */
import type { Step } from './suite.ts';

export const IMITATED_VERSION = [6, 8, 0];

/** DSL features this runner implements; a test that needs another one is skipped. */
export const SUPPORTED_FEATURES = new Set([
  'headers', 'warnings', 'allowed_warnings', 'stash_in_path', 'stash_in_key', 'default_shards',
  'arbitrary_key', 'contains', 'node_selector', 'catch_unauthorized', 'embedded_stash_key',
  // Tessera has no X-Pack, which is what no_xpack asks for.
  'no_xpack',
]);

export function skipReason(steps: Step[]): string | null {
  const first = steps[0];
  if (!first || !first.skip) return null;
  const s = first.skip as { version?: string; reason?: string; features?: string | string[] };
  const features = s.features === undefined ? [] : (Array.isArray(s.features) ? s.features : String(s.features).split(','))
    .map((f) => f.trim());
  const missing = features.filter((f) => !SUPPORTED_FEATURES.has(f));
  if (missing.length) return `needs runner feature(s) ${missing.join(', ')}`;
  if (s.version !== undefined && versionInRanges(String(s.version))) return `version ${s.version}: ${s.reason ?? ''}`.trim();
  return null;
}

function versionInRanges(spec: string): boolean {
  if (spec.trim() === 'all') return true;
  return spec.split(',').some((range) => {
    const [lo, hi] = range.split('-').map((x) => x.trim());
    const v = IMITATED_VERSION;
    return (lo === '' || compare(v, parse(lo)) >= 0) && (hi === undefined || hi === '' || compare(v, parse(hi)) <= 0);
  });
}

function parse(v: string): number[] {
  return v.replace(/[^\d.]/g, '').split('.').map((x) => Number(x) || 0);
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}
