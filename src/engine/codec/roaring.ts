/**
 * The adapter for `roaring` (CRoaring bindings), the only module that imports it: 32-bit roaring bitmaps.
 * Required with the first bitmap rather than imported: its loader locates the native binary through node-pre-gyp
 * (64 modules, ~50 ms of a thread's start), which a thread holding no bitmap yet — a shard worker without series,
 * the main thread of a node serving documents — need not pay to start (docs/benchmarks.md, issue 11).
 */
import { createRequire } from 'node:module';
import type roaring from 'roaring';

type Class = typeof roaring.RoaringBitmap32;
export type Bitmap = InstanceType<Class>;

let loaded: Class | null = null;

function roaringBitmap32(): Class {
  loaded ??= (createRequire(import.meta.url)('roaring') as typeof roaring).RoaringBitmap32;
  return loaded;
}

/** A bitmap of `values`, or an empty one. */
export function bitmapOf(values?: Uint32Array | number[]): Bitmap {
  const Bitmap32 = roaringBitmap32();
  return values === undefined ? new Bitmap32() : new Bitmap32(values);
}

/** The union of `parts`, a new bitmap. */
export function bitmapUnion(parts: Bitmap[]): Bitmap {
  return roaringBitmap32().orMany(parts);
}

/** A bitmap read from its portable serialized form (`serialize(true)`). */
export function portableBitmap(bytes: Buffer): Bitmap {
  return roaringBitmap32().deserialize(bytes, true);
}
