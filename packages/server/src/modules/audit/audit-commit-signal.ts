import type { Kysely } from 'kysely';

/**
 * Tells the live stream that audit events were committed, so it reads them at once instead of
 * at its next poll. recordAudit marks the transaction it wrote in; the transaction helpers
 * (db/transaction.ts, db/group-commit.ts) call committed() after the commit, and only then is
 * the signal sent: a reader woken before the commit would find nothing and sleep.
 *
 * Process-wide: listeners are the live feeds of this process (one per app; tests run several).
 * A lost or early signal costs latency only: every feed also polls.
 */
const marked = new WeakSet<object>();
const listeners = new Set<() => void>();

export function onAuditCommitted(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function signalAuditCommitted(): void {
  for (const fn of listeners) fn();
}

/** Called by recordAudit: inside a transaction it waits for the commit; alone it has committed. */
export function auditWritten(db: Kysely<any>): void {
  if (db.isTransaction) marked.add(db);
  else signalAuditCommitted();
}

/** Called by whoever committed `trx`. */
export function committed(trx: Kysely<any>): void {
  if (marked.delete(trx)) signalAuditCommitted();
}
