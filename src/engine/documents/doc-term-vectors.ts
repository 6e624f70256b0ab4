/**
 * `_termvectors` on one shard: finds the document (real-time by default, like a GET: unrefreshed writes are
 * refreshed first so the statistics see the document, as ES's internal "realtime_get" refresh does) or takes
 * the artificial one, maps an artificial doc's new fields as dynamic mapping would (without keeping them),
 * and hands the source to the search engine's term-vector builder.
 */
import type { DocShard } from './doc-shard.ts';
import { dynamicUpdate } from './dynamic.ts';
import { mergeMapping } from './mapping.ts';
import { FieldInfos } from '../indexing/field-infos.ts';
import { termVectors, type TermVectorField, type TermVectorsOptions } from '../search/term-vectors.ts';

export interface TermVectorsRequest extends TermVectorsOptions {
  /** The stored document's id; null for an artificial document. */
  id: string | null;
  /** The artificial document. */
  doc: Record<string, unknown> | null;
  realtime: boolean;
}

export interface TermVectorsResult {
  found: boolean;
  version: number;
  fields: TermVectorField[];
}

export function shardTermVectors(shard: DocShard, r: TermVectorsRequest): TermVectorsResult {
  if (r.doc) {
    const delta = dynamicUpdate(shard.mapping, shard.type, r.doc);
    const mapping = delta ? mergeMapping(shard.mapping, delta) : shard.mapping;
    const reader = shard.shardIndex.reader(shard.mapping);
    // A throwaway view: the shard's own mapping stays as it is.
    const infos = delta ? new FieldInfos(mapping, reader.infos.defaultAnalyzer, reader.infos.defaultSearchAnalyzer) : reader.infos;
    return { found: true, version: 0, fields: termVectors(reader, infos, reader.analyzers, r.doc, true, r) };
  }
  if (r.realtime && shard.dirty) shard.refresh();
  const reader = shard.shardIndex.reader(shard.mapping);
  const hit = findVisible(shard, r.id!);
  if (!hit) return { found: false, version: 0, fields: [] };
  const source = JSON.parse(Buffer.from(hit.source).toString('utf8')) as Record<string, unknown>;
  return { found: true, version: hit.version, fields: termVectors(reader, reader.infos, reader.analyzers, source, false, r) };
}

/** The doc as the current reader sees it (after a real-time refresh, the live doc). */
function findVisible(shard: DocShard, id: string): { source: Uint8Array; version: number } | null {
  const reader = shard.shardIndex.reader(shard.mapping);
  for (let i = reader.segments.length - 1; i >= 0; i--) {
    const seg = reader.segments[i];
    const d = seg.lookupId(id);
    if (d < 0) continue;
    const live = reader.live[i];
    if (live && live[d] === 0) continue;
    const st = seg.stored(d);
    return { source: st.source, version: st.version };
  }
  return null;
}
