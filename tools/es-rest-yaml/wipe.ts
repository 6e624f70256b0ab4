/**
 * Returns the cluster to empty between tests, as ES's ESRestTestCase does after each one: indices (open and
 * closed), templates, ingest pipelines, open scrolls, and persistent and transient cluster settings.
 */
import { httpCall } from './http-call.ts';

export async function wipeCluster(base: string): Promise<void> {
  await httpCall(`${base}/*?expand_wildcards=open,closed`, 'DELETE', {}, undefined);
  await httpCall(`${base}/_template/*`, 'DELETE', {}, undefined);
  await httpCall(`${base}/_ingest/pipeline/*`, 'DELETE', {}, undefined);
  await httpCall(`${base}/_search/scroll/_all`, 'DELETE', {}, undefined);
  const res = await httpCall(`${base}/_cluster/settings?flat_settings=true`, 'GET', {}, undefined);
  if (res.status !== 200) return;
  const settings = JSON.parse(res.text) as Record<string, Record<string, unknown>>;
  const reset: Record<string, Record<string, null>> = {};
  for (const scope of ['persistent', 'transient']) {
    const keys = Object.keys(settings[scope] ?? {});
    if (keys.length) reset[scope] = Object.fromEntries(keys.map((k) => [k, null]));
  }
  if (Object.keys(reset).length) {
    await httpCall(`${base}/_cluster/settings`, 'PUT', { 'content-type': 'application/json' }, JSON.stringify(reset));
  }
}
