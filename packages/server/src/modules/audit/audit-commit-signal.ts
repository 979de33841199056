/**
 * Tells the live stream that audit events were committed, so it reads them at once instead of
 * at its next poll. recordAudit sends it through afterCommit (db/transaction.ts): a reader woken
 * before the commit would find nothing and sleep.
 *
 * Process-wide: listeners are the live feeds of this process (one per app; tests run several).
 * A lost or early signal costs latency only: every feed also polls.
 */
const listeners = new Set<() => void>();

export function onAuditCommitted(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function signalAuditCommitted(): void {
  for (const fn of listeners) fn();
}
