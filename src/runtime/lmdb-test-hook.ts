/**
 * Tests only (`TESSERA_TEST_HOOKS=1`): `TESSERA_TEST_LMDB_FOREGROUND_MS` sets how long an LMDB environment's
 * start-up consistency read may take before it is left to the background (0: at once), so that tests meet
 * the background path without an environment too large to read within the normal budget. Undefined otherwise.
 */
export function lmdbForegroundReadMs(): number | undefined {
  const v = process.env.TESSERA_TEST_LMDB_FOREGROUND_MS;
  return process.env.TESSERA_TEST_HOOKS === '1' && v !== undefined ? Number(v) : undefined;
}
