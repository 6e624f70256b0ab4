/**
 * Which engine partition owns a contact. Contacts are spread over the partitions by a hash of
 * `(businessId, contactId)`; everything about one contact (its state, runs, timers, action log, outbox)
 * lives in its partition, and its events are processed there in arrival order. The count is fixed when a
 * data directory is created (docs/format.md "Workflow state").
 */

/** FNV-1a over the UTF-16 code units of `businessId SEP contactId`; stable across versions (on-disk contract). */
export function partitionOf(businessId: number | null, contactId: string, partitions: number): number {
  if (partitions <= 1) return 0;
  let h = 0x811c9dc5;
  const s = String(businessId);
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ 0x1f, 0x01000193);
  for (let i = 0; i < contactId.length; i++) h = Math.imul(h ^ contactId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % partitions;
}
