/**
 * The one helper for waiting on state that has no event to listen to (a child server's HTTP API, a scrape
 * loop's sink): calls `probe` until it returns a value other than null, undefined or false, and resolves
 * with it. A probe that throws counts as "not yet" (a server still starting refuses connections); when time
 * runs out the error names `what` and the probe's last error. Prefer an event or an injected clock where
 * the code offers one.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (let pauseMs = 10; ; pauseMs = Math.min(pauseMs * 2, 100)) {
    try {
      const v = await probe();
      if (v !== null && v !== undefined && v !== false) return v;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${(lastError as Error).message ?? lastError}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}
