/** The only module that imports msgpackr: encoding of messages that cross thread boundaries and LMDB values. */
import { Packr } from 'msgpackr';

// Records mode off: messages are small ad-hoc objects whose shapes vary by op; plain maps keep them self-describing.
const packr = new Packr({ useRecords: false, moreTypes: true, int64AsType: 'number' });

export function pack(value: unknown): Buffer {
  return packr.pack(value);
}

export function unpack<T = unknown>(bytes: Uint8Array): T {
  return packr.unpack(bytes) as T;
}
