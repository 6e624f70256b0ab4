/**
 * A check of an LMDB environment's two meta pages before LMDB maps the file. LMDB trusts its meta pages: a
 * damaged one (a torn write, a flipped byte, a file cut short) makes it follow wild page numbers and kill the
 * process natively (SIGSEGV, SIGBUS or an abort) with no message. Reading the pages first turns that into a
 * CorruptionError naming the file and offset.
 *
 * Layout of the LMDB 1.0 data format lmdb-js writes (`MDB_DATA_VERSION` 2, 24-byte page header): at the
 * start of pages 0 and 1, `mp_flags` u16 LE at 0x12 with P_META (0x08); then the meta: `mm_magic` u32 LE at
 * 0x18 (0xBEEFC0DE), `mm_version` u32 LE at 0x1C, and the page size (the free DB's `md_pad`) u32 LE at 0x30.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { CorruptionError } from '../errors.ts';

const P_META = 0x08;
const MDB_MAGIC = 0xbeefc0de;
const DATA_VERSIONS = new Set([1, 2]);
const HEAD_BYTES = 0x34;

/** Throws CorruptionError when `file` (an existing data.mdb) does not start with two valid meta pages. */
export function checkLmdbMetaPages(file: string): void {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(HEAD_BYTES);
    const read = (pos: number): void => {
      if (readSync(fd, head, 0, HEAD_BYTES, pos) !== HEAD_BYTES) throw new CorruptionError(file, pos, 'LMDB meta page cut short');
    };
    read(0);
    checkMeta(file, head, 0);
    const pageSize = head.readUInt32LE(0x30);
    if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
      throw new CorruptionError(file, 0x30, `LMDB meta page gives page size ${pageSize}`);
    }
    if (size < 2 * pageSize) throw new CorruptionError(file, size, `LMDB file is ${size} bytes, shorter than its two meta pages`);
    read(pageSize);
    checkMeta(file, head, pageSize);
  } finally {
    closeSync(fd);
  }
}

function checkMeta(file: string, head: Buffer, at: number): void {
  if ((head.readUInt16LE(0x12) & P_META) === 0) throw new CorruptionError(file, at + 0x12, 'LMDB page is not a meta page');
  const magic = head.readUInt32LE(0x18);
  if (magic !== MDB_MAGIC) throw new CorruptionError(file, at + 0x18, `bad LMDB magic 0x${magic.toString(16)}`);
  const version = head.readUInt32LE(0x1c);
  if (!DATA_VERSIONS.has(version)) throw new CorruptionError(file, at + 0x1c, `unknown LMDB data version ${version}`);
}
