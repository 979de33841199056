import type { Deps } from '../deps.js';
import type { Db } from './database.js';
import { committed } from '../modules/audit/audit-commit-signal.js';

/**
 * Runs fn in a new transaction and, once it has committed, what waits for the commit (the live
 * audit stream's signal). Every transaction of the service starts here.
 */
export async function transaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  let trx: Db | null = null;
  const result = await db.transaction().execute((t) => {
    trx = t;
    return fn(t);
  });
  if (trx) committed(trx);
  return result;
}

/** Runs fn in a transaction, or inside the caller's when one is already open. */
export function inTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : transaction(db, fn);
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
  const result = await transaction(deps.db, (trx) =>
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
