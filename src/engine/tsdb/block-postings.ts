/**
 * A block's postings, read from its index file on demand (nothing is kept between lookups: the page cache
 * holds the bytes, as Prometheus's memory-mapped index does).
 */
import { bitmapOf, type Bitmap } from '../codec/roaring.ts';
import { PostingsIndex } from './postings.ts';
import type { BlockIndexReader } from './index-reader.ts';

export class BlockPostings extends PostingsIndex {
  constructor(private readonly reader: BlockIndexReader) { super(); }

  protected postings(name: string, value: string): Bitmap | undefined {
    const refs = this.reader.postings(name, value);
    return refs === null ? undefined : bitmapOf(refs);
  }

  protected valuesOf(name: string): Iterable<string> { return this.reader.labelValues(name); }
  protected names(): Iterable<string> { return this.reader.labelNames(); }
  protected allRefs(): Bitmap { return bitmapOf(this.reader.allPostings()); }

  protected override valuesCarriedBy(name: string, refs: Bitmap): string[] {
    return this.reader.valuesWithAnyRef(name, (ref) => refs.has(ref));
  }

  /** The picked values' lists read into one array (ascending within each list), then one bitmap. */
  protected override unionWhere(name: string, pick: (value: string) => boolean): Bitmap {
    return bitmapOf(this.reader.postingsWhere(name, pick));
  }
}
