/**
 * Tells this process's sender that messages were committed, so it sends them at once instead of
 * at its next poll. emitWebhookEvents sends it through afterCommit (db/transaction.ts): a sender
 * woken before the commit would find nothing due. Process-wide, like the audit stream's signal:
 * a lost or early signal costs latency only, because the sender also polls.
 */
const listeners = new Set<() => void>();

export function onOutboxCommitted(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function signalOutboxCommitted(): void {
  for (const fn of listeners) fn();
}
