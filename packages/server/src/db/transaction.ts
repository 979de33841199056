import type { Db } from './database.js';

/** What waits for the commit of each open transaction (see afterCommit). */
const waiting = new WeakMap<object, Array<() => unknown>>();

/**
 * Work that must wait for the commit: dropping cached credentials on every node, waking the live
 * audit stream. Inside a transaction it runs once the transaction has committed (never after a
 * rollback), before the operation's caller gets its answer; outside one it runs at once. A group
 * commit runs its jobs in savepoints of one transaction, so the work of a job rolled back alone may
 * still run: keep it to what is harmless to do once too often (signals, cache clears).
 */
export async function afterCommit(db: Db, work: () => unknown): Promise<void> {
  if (!db.isTransaction) {
    await work();
    return;
  }
  const list = waiting.get(db);
  if (list) list.push(work);
  else waiting.set(db, [work]);
}

/**
 * Runs fn in a new transaction and, once it has committed, what waits for the commit. Every
 * transaction of the service starts here or in inTransaction.
 */
export async function transaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  let trx: Db | null = null;
  let result: T;
  try {
    result = await db.transaction().execute((t) => {
      trx = t;
      return fn(t);
    });
  } catch (err) {
    if (trx) waiting.delete(trx);
    throw err;
  }
  const after = trx ? waiting.get(trx) : undefined;
  if (after) {
    waiting.delete(trx!);
    for (const work of after) await work();
  }
  return result;
}

/** Runs fn in a transaction, or inside the caller's when one is already open (its owner commits, and runs what waits). */
export function inTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : transaction(db, fn);
}
