/**
 * Whole files written so that a crash leaves either the old content or the new, never a mix or an empty file
 * (write a `.tmp` beside it, fsync, rename over it), and directory fsyncs, without which POSIX may lose a
 * rename or a newly created file's directory entry. The one implementation every writer of metadata, commit
 * points, block files, checkpoints and the banner's cluster uuid shares.
 */
import { closeSync, fsyncSync, openSync, promises as fsp, renameSync, writeSync } from 'node:fs';

/** Writes `data` to `file` atomically (tmp + fsync + rename). The caller syncs the directory when it must. */
export async function writeFileAtomic(file: string, data: Uint8Array | string): Promise<void> {
  const tmp = `${file}.tmp`;
  const fh = await fsp.open(tmp, 'w');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fsp.rename(tmp, file);
}

/** `writeFileAtomic` on the calling thread: `parts` written one after the other. */
export function writeFileAtomicSync(file: string, parts: (Uint8Array | string)[]): void {
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    for (const p of parts) {
      const bytes = typeof p === 'string' ? Buffer.from(p) : p;
      let done = 0;
      while (done < bytes.byteLength) done += writeSync(fd, bytes, done, bytes.byteLength - done);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/** fsyncs a directory so that files created, renamed or removed in it survive a crash. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await fsp.open(dir, 'r');
  try { await fh.sync(); } finally { await fh.close(); }
}

export function syncDirSync(dir: string): void {
  const fd = openSync(dir, 'r');
  try { fsyncSync(fd); } finally { closeSync(fd); }
}
