/**
 * A small real file system for disk-full tests: a tmpfs mounted on a new temporary directory (as root; where
 * mounting is not permitted, `skip` says why and the test skips), and a filler that takes its free space.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  dir: string;
  /** Why the tmpfs could not be mounted, or false. */
  skip: string | false;
  /** Unmounts (lazily if busy) and deletes the directory. */
  remove(): void;
}

export function mountSmallDisk(prefix: string, size: string): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let mounted = false, skip: string | false = false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    mounted = true;
  } catch (e) {
    skip = `mounting a tmpfs is not permitted here (${String((e as Error).message).split('\n')[0]})`;
  }
  return {
    dir, skip,
    remove: () => {
      if (mounted) { try { execFileSync('umount', [dir]); } catch { execFileSync('umount', ['-l', dir]); } }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes zeros to `path` until the file system refuses (ENOSPC), then the last partial page a page at a time. */
export function fillDisk(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(1 << 20);
  try {
    for (;;) {
      try { writeSync(fd, chunk); } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
        for (;;) { try { writeSync(fd, chunk, 0, 4096); } catch { return; } }
      }
    }
  } finally {
    closeSync(fd);
  }
}
