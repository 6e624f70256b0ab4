/**
 * Reads and checks every region of an on-disk segment: each field's term blocks and postings (positions
 * included), the `_id` dictionary, every doc-value column, norms, the nested structure and every stored-field
 * block. Damage anywhere throws `CorruptionError` with the file and the offset of the damaged region. Used by
 * `index.shard.check_on_startup` (Elasticsearch's `checksum` check) and by merges' readers implicitly.
 *
 * Reads go through the segment's merge view (a private cache), so verifying does not evict searches' data.
 */
import { CorruptionError } from '../errors.ts';
import { type DiskSegment, segmentFile } from './disk-segment.ts';

export function verifySegment(segment: DiskSegment): void {
  const seg = segment.mergeView();
  try {
    for (const name of seg.fieldNames()) {
      const fp = seg.field(name)!;
      for (let t = 0; t < fp.numTerms; t++) fp.postings(t, fp.hasPositions);
      fp.norms();
    }
    for (const name of seg.numericNames()) seg.numeric(name);
    for (const name of seg.ordinalNames()) seg.ordinals(name);
    for (const name of seg.existsNames()) seg.exists(name);
    if (seg.hasNested) seg.parentOf();
    // Every stored doc must be found by its `_id` (which reads every `_id` block along the way).
    for (const e of seg.storedEntries()) {
      const hit = seg.lookup(e.id);
      if (!hit || hit.doc !== e.doc) throw new CorruptionError(segmentFile(seg.dir, seg.name, 'ids'), 0, `_id [${e.id}] of doc ${e.doc} is not in the _id dictionary`);
    }
  } finally {
    seg.close();
  }
}
