/**
 * Countdown resolution (spec §7): target = startTime − countdownValue, evaluated at arrival and on every
 * `startTime` change. Pure so the table can be tested on its own.
 */

export type CountdownResolution =
  | { kind: 'missing' }              // channel not found / deleted → failed CHANNEL_NOT_FOUND
  | { kind: 'wait' }                 // startTime null → pending with fireAt null
  | { kind: 'at'; fireAt: number }   // target in the future
  | { kind: 'late'; fireAt: number } // target passed but the stream has not started → fire now, late
  | { kind: 'passed' };              // the stream already started → skipped countdown_passed

/** `startTime` undefined means the channel does not exist. */
export function resolveCountdown(startTime: number | null | undefined, countdownValue: number, now: number): CountdownResolution {
  if (startTime === undefined) return { kind: 'missing' };
  if (startTime === null) return { kind: 'wait' };
  const target = startTime - countdownValue;
  if (target > now) return { kind: 'at', fireAt: target };
  if (now < startTime) return { kind: 'late', fireAt: target };
  return { kind: 'passed' };
}
