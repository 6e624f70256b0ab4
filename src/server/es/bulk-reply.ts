/**
 * The common `_bulk` response item (a plain write result) written straight into the response's bytes, the
 * same bytes `JSON.stringify` gives for it: the constant pieces are encoded once, the id and numbers by hand.
 * Building each item as a template string and encoding it cost a rope per item, its flattening and a call
 * into the encoder (~10% of the HTTP thread's time on a bulk load).
 */
import type { ByteWriter } from '../../engine/codec/byte-buf.ts';
import { WRITE_RESULTS } from '../../workers/protocol.ts';

const enc = new TextEncoder();
const QUOTE = 0x22, BACKSLASH = 0x5c, ZERO = 0x30;

/** `{"<action>":{` by action. */
const ACTION_OPEN = new Map(['index', 'create', 'update', 'delete'].map((a) => [a, enc.encode(`{"${a}":{`)]));
const VERSION = enc.encode(',"_version":');
/** `,"result":"<result>",` by WRITE_RESULTS index, then with `"forced_refresh":true,` after it. */
const RESULT = WRITE_RESULTS.map((r) => enc.encode(`,"result":"${r}",`));
const RESULT_FORCED = WRITE_RESULTS.map((r) => enc.encode(`,"result":"${r}","forced_refresh":true,`));
const SEQ_NO = enc.encode(',"_seq_no":');
const PRIMARY_TERM = enc.encode(',"_primary_term":');
/** `,"status":<status>}}` by WRITE_RESULTS index. */
const STATUS_CLOSE = WRITE_RESULTS.map((r) => enc.encode(`,"status":${resultStatus(r)}}}`));

/** An item's HTTP status for its result. */
export function resultStatus(result: string): number {
  return result === 'created' ? 201 : result === 'not_found' ? 404 : 200;
}

/** The pieces of a run of items into one index and type: `"_index":…,"_type":…,"_id":` and the shard counts. */
export interface BulkRun { indexAndType: Uint8Array; shards: Uint8Array }

export function bulkRun(index: string, type: string, totalShards: number): BulkRun {
  return {
    indexAndType: enc.encode(`"_index":${JSON.stringify(index)},"_type":${JSON.stringify(type)},"_id":`),
    shards: enc.encode(`"_shards":{"total":${totalShards},"successful":1,"failed":0}`),
  };
}

/** `{"<action>":{"_index":…,"_id":…,"_version":…,"result":…,["forced_refresh":true,]"_shards":…,"_seq_no":…,"_primary_term":…,"status":…}}`. */
export function writePlainItem(out: ByteWriter, action: string, run: BulkRun, id: string, result: number, forced: boolean,
  version: number, seqNo: number, primaryTerm: number): void {
  out.bytes(ACTION_OPEN.get(action)!);
  out.bytes(run.indexAndType);
  jsonStringInto(out, id);
  out.bytes(VERSION);
  numberInto(out, version);
  out.bytes(forced ? RESULT_FORCED[result] : RESULT[result]);
  out.bytes(run.shards);
  out.bytes(SEQ_NO);
  numberInto(out, seqNo);
  out.bytes(PRIMARY_TERM);
  numberInto(out, primaryTerm);
  out.bytes(STATUS_CLOSE[result]);
}

/** `JSON.stringify(s)`'s bytes; printable ASCII without quotes or backslashes (ids nearly always) copied by hand. */
function jsonStringInto(out: ByteWriter, s: string): void {
  const n = s.length;
  out.ensure(n + 2);
  const buf = out.buf;
  let at = out.len;
  buf[at++] = QUOTE;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c >= 0x80 || c === QUOTE || c === BACKSLASH) { out.utf8(JSON.stringify(s)); return; }
    buf[at++] = c;
  }
  buf[at++] = QUOTE;
  out.len = at;
}

/** A number as `JSON.stringify` writes it; a non-negative integer below 2^31 (versions, seq_nos) by hand. */
function numberInto(out: ByteWriter, x: number): void {
  if (!(x >= 0 && x < 0x80000000 && x === Math.floor(x))) { out.utf8(JSON.stringify(x)); return; }
  let digits = 1;
  for (let y = x; y >= 10; y = Math.floor(y / 10)) digits++;
  out.ensure(digits);
  const buf = out.buf;
  let at = out.len + digits;
  out.len = at;
  do { buf[--at] = ZERO + (x % 10); x = Math.floor(x / 10); } while (x > 0);
}
