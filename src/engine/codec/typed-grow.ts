/** Growable typed columns (builders, tables, sample columns) grow by copying into a larger array. */

type Column = Int32Array | Uint32Array | Float64Array | Uint8Array | Uint16Array;

/** A copy of `a` in a new array of the same kind with `length` elements (default: twice `a`'s), the rest zeros. */
export function grown<A extends Column>(a: A, length = a.length * 2): A {
  const b = new (a.constructor as new (n: number) => A)(length);
  b.set(a);
  return b;
}
