/**
 * Document translog records (docs/format.md "Document translog record"). Version 2, written: a fixed binary
 * layout encoded straight into the write batch's buffer (a msgpack array per operation cost a buffer and
 * about 2% of a bulk load's worker CPU). Version 1 records (msgpack arrays, types 1 and 2) are still read: a
 * translog written before the change replays as it was.
 *
 *   flags u8 (bit 0: a routing follows) · _id (uvarint length + UTF-8) · _version f64 LE ·
 *   _seq_no uvarint · _primary_term uvarint · [_routing (uvarint length + UTF-8)] ·
 *   index: _source (uvarint length + bytes) | delete: deleted-at epoch ms f64 LE
 */
import { ByteReader, type ByteWriter } from '../codec/byte-buf.ts';
import { DOC_TRANSLOG_DELETE, DOC_TRANSLOG_DELETE_V1, DOC_TRANSLOG_INDEX, DOC_TRANSLOG_INDEX_V1 } from '../codec/format-ids.ts';
import { CorruptionError } from '../errors.ts';
import { unpack } from '../codec/msgpack.ts';

/** One logged operation: `source` null for a delete (then `deletedAt` is set). */
export interface TranslogOp {
  id: string;
  version: number;
  seqNo: number;
  primaryTerm: number;
  routing: string | null;
  source: Uint8Array | null;
  deletedAt: number | null;
}

const HAS_ROUTING = 1;

/** Appends the payload of `op` to `w`; returns its record type. */
export function encodeTranslogOp(w: ByteWriter, id: string, version: number, seqNo: number, primaryTerm: number, routing: string | null, source: Uint8Array | null, deletedAt: number | null): number {
  w.u8(routing !== null ? HAS_ROUTING : 0);
  w.str(id);
  w.f64(version);
  w.uvarint(seqNo);
  w.uvarint(primaryTerm);
  if (routing !== null) w.str(routing);
  if (source !== null) {
    w.uvarint(source.byteLength);
    w.bytes(source);
    return DOC_TRANSLOG_INDEX;
  }
  w.f64(deletedAt ?? 0);
  return DOC_TRANSLOG_DELETE;
}

/** The operation of a translog record of either version; `where` names the log for a corruption error. */
export function decodeTranslogOp(type: number, payload: Uint8Array, where: string): TranslogOp {
  if (type === DOC_TRANSLOG_INDEX_V1 || type === DOC_TRANSLOG_DELETE_V1) {
    const [id, version, seqNo, primaryTerm, routing, source, deletedAt] = unpack<[string, number, number, number, string | null, Uint8Array | null, number | null]>(payload);
    return { id, version, seqNo, primaryTerm, routing, source, deletedAt };
  }
  if (type !== DOC_TRANSLOG_INDEX && type !== DOC_TRANSLOG_DELETE) throw new CorruptionError(where, 0, `unknown translog record type ${type}`);
  const r = new ByteReader(payload, where);
  const flags = r.u8();
  const id = r.str();
  const version = r.f64();
  const seqNo = r.uvarint();
  const primaryTerm = r.uvarint();
  const routing = flags & HAS_ROUTING ? r.str() : null;
  if (type === DOC_TRANSLOG_INDEX) return { id, version, seqNo, primaryTerm, routing, source: r.bytes(r.uvarint()), deletedAt: null };
  return { id, version, seqNo, primaryTerm, routing, source: null, deletedAt: r.f64() };
}
