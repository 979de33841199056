import type { Deps } from '../deps.js';
import type { Db } from './database.js';

/** Runs fn in a transaction, or inside the caller's when one is already open. */
export function inTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

/**
 * Runs several operations as one unit: they share one transaction, and what they want done
 * after the commit (dropping cached credentials everywhere) waits until it has happened, so no
 * node can re-cache a state that is about to change.
 */
export async function inUnitOfWork<T>(deps: Deps, fn: (txDeps: Deps) => Promise<T>): Promise<T> {
  // Already inside one (a group commit, say): its owner commits, and defers what comes after.
  if (deps.db.isTransaction) return fn(deps);
  let invalidate = false;
  const result = await deps.db.transaction().execute((trx) =>
    fn({
      ...deps,
      db: trx,
      invalidateCredentials: async () => {
        invalidate = true;
      },
    }),
  );
  if (invalidate) await deps.invalidateCredentials();
  return result;
}
