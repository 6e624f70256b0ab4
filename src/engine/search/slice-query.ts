/**
 * Sliced scrolls (`slice: {id, max, field}`), as ES 6.8's SliceBuilder splits one scroll into `max`
 * independent ones. Which shards a slice reads, and whether it reads all of a shard or a part, is decided
 * per shard (`sliceForShard`); a part of a shard is the docs whose `_id` term hashes into the slice:
 * murmur3_x86_32 (seed 7919) of the id as Lucene indexes it (ES's `Uid.encodeId`), `floorMod` the slice
 * count. Matching ES's hash means a slice holds the same documents as on a real node.
 */
import { InvalidArgumentError } from '../errors.ts';
import type { Segment } from '../postings/segment.ts';
import { ArrayCursor } from '../postings/cursor.ts';
import { ConstScorer, type Scorer } from './scorers.ts';
import type { Weight } from './weight.ts';
import { murmur3Bytes } from '../codec/murmur3.ts';

export interface SliceSpec { field: string; id: number; max: number }

/** Parses and checks a request's `slice` object (ES's SliceBuilder rules and messages). */
export function parseSlice(v: Record<string, unknown>): SliceSpec {
  const field = v.field === undefined ? '_id' : String(v.field);
  const id = Number(v.id), max = Number(v.max);
  if (!Number.isInteger(id) || id < 0) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', 'id must be greater than or equal to 0');
  if (!Number.isInteger(max) || max <= 1) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', 'max must be greater than 1');
  if (id >= max) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', 'max must be greater than id');
  if (field !== '_id' && field !== '_uid') throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `slicing on field [${field}] is not supported: only [_id]`);
  return { field: '_id', id, max };
}

/**
 * What slice `s` reads of shard `shard` of `numShards`: 'none', 'all', or the part `{id, max}` of the shard's
 * docs (ES's SliceBuilder.toFilter: slices are spread over shards first, then split within a shard).
 */
export function sliceForShard(s: SliceSpec, shard: number, numShards: number): 'none' | 'all' | { id: number; max: number } {
  if (numShards === 1) return { id: s.id, max: s.max };
  if (s.max >= numShards) {
    const targetShard = s.id % numShards;
    if (targetShard !== shard) return 'none';
    let inShard = Math.floor(s.max / numShards);
    if (s.max % numShards > targetShard) inShard++;
    if (inShard === 1) return 'all';
    return { id: Math.floor(s.id / numShards), max: inShard };
  }
  return shard % s.max === s.id ? 'all' : 'none';
}

/** Root docs of a segment whose `_id` hashes into slice `id` of `max`. */
export function sliceWeight(id: number, max: number): Weight {
  return {
    scorer(_ord: number, seg: Segment): Scorer | null {
      const docs: number[] = [];
      const parentOf = seg.hasNested ? seg.parentOf() : null;
      for (let d = 0; d < seg.maxDoc; d++) {
        if (parentOf !== null && parentOf[d] !== -1) continue;
        const h = murmur3Bytes(encodeId(seg.id(d)), SLICE_SEED);
        if (((h % max) + max) % max === id) docs.push(d);
      }
      return docs.length ? new ConstScorer(new ArrayCursor(Uint32Array.from(docs)), 1) : null;
    },
  };
}

const SLICE_SEED = 7919;
const NUMERIC = 0xfe, UTF8 = 0xff, BASE64_ESCAPE = 0xfd;
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** ES 6's `Uid.encodeId`: URL-safe base64 ids decoded, digit-only ids packed in nibbles, others UTF-8 behind a marker. */
export function encodeId(id: string): Uint8Array {
  if (isUrlBase64(id)) {
    const b = Buffer.from(id, 'base64url');
    return b[0] >= BASE64_ESCAPE ? Buffer.concat([Buffer.from([BASE64_ESCAPE]), b]) : b;
  }
  if (/^[0-9]+$/.test(id)) {
    const out = new Uint8Array(1 + ((id.length + 1) >> 1));
    out[0] = NUMERIC;
    for (let i = 0; i < id.length; i += 2) {
      const hi = id.charCodeAt(i) - 48, lo = i + 1 === id.length ? 0x0f : id.charCodeAt(i + 1) - 48;
      out[1 + (i >> 1)] = (hi << 4) | lo;
    }
    return out;
  }
  return Buffer.concat([Buffer.from([UTF8]), Buffer.from(id, 'utf8')]);
}

function isUrlBase64(id: string): boolean {
  const n = id.length;
  if (n === 0 || (n & 3) === 1) return false;
  for (let i = 0; i < n; i++) if (B64.indexOf(id[i]) < 0) return false;
  const last = B64.indexOf(id[n - 1]);
  // The bits past the last whole byte must be zero, or two ids would decode to the same bytes.
  if ((n & 3) === 2 && (last & 0x0f) !== 0) return false;
  if ((n & 3) === 3 && (last & 0x03) !== 0) return false;
  return true;
}

