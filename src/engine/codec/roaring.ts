/**
 * The adapter for `roaring` (CRoaring bindings), the only module that imports it: 32-bit roaring bitmaps.
 * Required on first use rather than imported: its loader locates the native binary through node-pre-gyp, ~50 ms
 * of every thread's start, which a shard worker holding no series yet need not pay (docs/benchmarks.md, issue 11).
 */
import { createRequire } from 'node:module';
import type roaring from 'roaring';

type Class = typeof roaring.RoaringBitmap32;
export type Bitmap = InstanceType<Class>;

let loaded: Class | null = null;

/** The bitmap class; the first call loads the package. */
export function roaringBitmap32(): Class {
  loaded ??= (createRequire(import.meta.url)('roaring') as typeof roaring).RoaringBitmap32;
  return loaded;
}
