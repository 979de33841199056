import { sql } from 'kysely';
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
 * Runs a whole transaction (begin, fn, commit) given the database to run it on: the default runs
 * it on the caller's; write-turns.ts's relaxed commit holds a connection around it. What waits for
 * the commit runs after the runner has returned.
 */
export type TransactionRunner = <T>(run: (on: Db) => Promise<T>) => Promise<T>;

/**
 * Runs fn in a new transaction and, once it has committed, what waits for the commit. Every
 * transaction of the service starts here or in inTransaction.
 */
export async function transaction<T>(db: Db, fn: (trx: Db) => Promise<T>, runner: TransactionRunner = (run) => run(db)): Promise<T> {
  let trx: Db | null = null;
  let result: T;
  try {
    result = await runner((on) =>
      on.transaction().execute((t) => {
        trx = t;
        return fn(t);
      }),
    );
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

/**
 * Runs fn atomically: in a new transaction, or, inside the caller's, in a savepoint of it, so a
 * failure rolls back fn's writes alone and the caller's transaction goes on (its owner commits).
 * What fn leaves for afterCommit waits for that commit, and may run although fn was rolled back:
 * keep it harmless to do once too often, as for group commit.
 */
export async function atomically<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  if (!db.isTransaction) return transaction(db, fn);
  // One name for every level: savepoints nest strictly, and ROLLBACK TO / RELEASE name the
  // innermost of that name (a constant text also keeps SQLite's statement cache warm).
  await sql`savepoint atomically`.execute(db);
  try {
    const result = await fn(db);
    await sql`release savepoint atomically`.execute(db);
    return result;
  } catch (err) {
    await sql`rollback to savepoint atomically`.execute(db);
    await sql`release savepoint atomically`.execute(db);
    throw err;
  }
}
