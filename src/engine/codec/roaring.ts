/** The adapter for `roaring` (CRoaring bindings), the only module that imports it: 32-bit roaring bitmaps. */
import roaring from 'roaring';

export const { RoaringBitmap32 } = roaring;
export type Bitmap = InstanceType<typeof RoaringBitmap32>;
