/** ULIDs for block directories: 48-bit ms timestamp + 80 random bits, Crockford base32, 26 characters. */
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function ulid(nowMs: number): string {
  let out = '';
  let t = Math.max(0, Math.floor(nowMs));
  for (let i = 0; i < 10; i++) { out = ALPHABET[t % 32] + out; t = Math.floor(t / 32); }
  const rnd = randomBytes(16);
  for (let i = 0; i < 16; i++) out += ALPHABET[rnd[i] % 32];
  return out;
}

export const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;
