/**
 * Makes the next `FileHandle#write` in this process fail with ENOSPC (then restores it): a translog append
 * that fails as on a full disk, where the tmpfs test (test/disk-full/) cannot mount.
 */
import { promises as fsp, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function failNextWrite(): Promise<void> {
  const probe = join(tmpdir(), `tessera-fh-probe-${process.pid}`);
  const fh = await fsp.open(probe, 'w');
  const proto = Object.getPrototypeOf(fh) as { write: (...a: unknown[]) => Promise<unknown> };
  await fh.close();
  rmSync(probe, { force: true });
  const orig = proto.write;
  proto.write = async function () {
    proto.write = orig;
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  };
}
