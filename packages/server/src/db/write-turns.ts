import { performance } from 'node:perf_hooks';
import type SQLite from 'better-sqlite3';
import type { Db } from './database.js';
import { transaction, type TransactionRunner } from './transaction.js';

/** Time as this module needs it: a monotonic reading and timers (tests drive them by hand). */
export interface TurnTime {
  now(): number;
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTime: TurnTime = {
  // Monotonic wall time: it only paces the job against ingestion; nothing billed depends on it.
  now: () => performance.now(),
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

/**
 * Who goes first at the embedded database's one write lock: usage writes. The SQLite writer
 * thread and the billing job each hold a connection, and the loser of a race for the lock sleeps
 * in SQLite's busy handler, with back-off up to 100 ms; while a test clock advance renewed
 * thousands of subscriptions, ingestion's p99 went from 144 ms to 5.4 s. So the writer counts the
 * usage writes it has in flight, and a background job runs each of its transactions through
 * `run`, which waits its turn:
 * - while usage is being written, the job's share of the time is at most `share`: after a
 *   transaction of d ms during which usage arrived, the next waits d x (1 - share) / share;
 * - then it goes as soon as no usage write is in flight;
 * - and after `maxWaitMs` at the latest, so a saturating ingestion load slows the job down but
 *   cannot stop it.
 * Without ingestion the job runs flat out. PostgreSQL has no single write lock, but the job and
 * ingestion share the cores (the node's and the database's): the same pacing keeps ingestion's
 * latency while a large renewal run goes on.
 */
export class WriteTurns {
  private inFlight = 0;
  private startedTotal = 0;
  private notBefore = 0;
  private lastFinished: number | null = null;
  private waiting: Array<() => void> = [];

  constructor(
    /** How long a job waits for its turn at most. */
    readonly maxWaitMs: number,
    /** The job's share of the time while usage is being written. */
    readonly share = 0.25,
    private readonly time: TurnTime = realTime,
  ) {}

  /** Whether usage is being written: a write in flight, or one answered in the last second. */
  active(): boolean {
    return this.inFlight > 0 || (this.lastFinished !== null && this.time.now() - this.lastFinished < ACTIVE_MS);
  }

  /** A usage write was handed to the writer. */
  started(): void {
    this.inFlight += 1;
    this.startedTotal += 1;
  }

  /** A usage write was answered (committed or failed). */
  finished(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.lastFinished = this.time.now();
    if (this.inFlight === 0) {
      const waiting = this.waiting;
      this.waiting = [];
      for (const wake of waiting) wake();
    }
  }

  /**
   * Runs one of a job's transactions in its turn (see the class). When it finds the write lock
   * taken (WriteLockBusy, from transactionNow: nothing began), it waits for the usage writes in
   * flight and tries again, for up to giveUpMs.
   */
  async run<T>(fn: () => Promise<T>, giveUpMs = 30_000): Promise<T> {
    const giveUpAt = this.time.now() + giveUpMs;
    for (;;) {
      await this.turn();
      const before = this.startedTotal;
      const t0 = this.time.now();
      try {
        return await fn();
      } catch (err) {
        if (!(err instanceof WriteLockBusy) || this.time.now() >= giveUpAt) throw err;
      } finally {
        const end = this.time.now();
        if (this.inFlight > 0 || this.startedTotal !== before) this.notBefore = end + ((end - t0) * (1 - this.share)) / this.share;
      }
      // Held by the writer (a write in flight) or by another process: again when it is free.
      await this.sleep(this.inFlight > 0 ? this.maxWaitMs : RETRY_MS, true);
    }
  }

  /** Resolves when the job may write: its pace kept and no usage write in flight, or maxWaitMs passed. */
  async turn(): Promise<void> {
    const deadline = this.time.now() + this.maxWaitMs;
    for (;;) {
      const t = this.time.now();
      if (t >= deadline) return;
      if (t < this.notBefore) await this.sleep(Math.min(this.notBefore, deadline) - t, false);
      else if (this.inFlight === 0) return;
      else await this.sleep(deadline - t, true);
    }
  }

  /** Waits ms, or (untilIdle) until the last usage write in flight is answered, whichever is first. */
  private sleep(ms: number, untilIdle: boolean): Promise<void> {
    return new Promise((resolve) => {
      let handle: unknown = null;
      const wake = () => {
        if (handle !== null) this.time.clear(handle);
        handle = null;
        resolve();
      };
      if (untilIdle) this.waiting.push(wake);
      handle = this.time.set(() => {
        handle = null;
        this.waiting = this.waiting.filter((w) => w !== wake);
        resolve();
      }, ms);
    });
  }
}

/** How long after its last usage write ingestion still counts as going on (active). */
const ACTIVE_MS = 1_000;

/** How soon a job tries the write lock again when no usage write is in flight (another process holds it). */
const RETRY_MS = 5;

/** The write lock was held by another connection: the transaction was not started, nothing was written. */
export class WriteLockBusy extends Error {
  constructor() {
    super('the SQLite write lock is held by another connection');
  }
}

/**
 * SQLite: runs fn in a transaction if the write lock is free now, or throws WriteLockBusy without
 * waiting. The main thread serves every request, so it must not sleep in SQLite's busy handler
 * (every main-thread transaction begins IMMEDIATE, db/database.ts) while the usage writer thread
 * commits; WriteTurns.run tries again later. The busy timeout is 0 for the BEGIN alone: it is put
 * back as soon as the transaction holds the connection (or failed to). PostgreSQL (sqlite null):
 * a plain transaction.
 *
 * `durable: false` commits without waiting for the disk (relaxedCommit), for writes that a power
 * cut may lose because they are redone anyway: the outbound webhook sender's claims and results.
 */
export async function transactionNow<T>(db: Db, sqlite: SQLite.Database | null, fn: (trx: Db) => Promise<T>, opts: { durable?: boolean } = {}): Promise<T> {
  if (sqlite === null) return transaction(db, fn);
  const runner = opts.durable === false ? relaxedCommit(db, sqlite) : undefined;
  const timeout = Number(sqlite.pragma('busy_timeout', { simple: true }));
  sqlite.pragma('busy_timeout = 0');
  let restored = false;
  const restore = () => {
    if (!restored) sqlite.pragma(`busy_timeout = ${timeout}`);
    restored = true;
  };
  try {
    return await transaction(
      db,
      (trx) => {
        restore();
        return fn(trx);
      },
      runner,
    );
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    if (!restored && typeof code === 'string' && code.startsWith('SQLITE_BUSY')) {
      restore();
      throw new WriteLockBusy();
    }
    throw err;
  } finally {
    restore();
  }
}

/**
 * Runs a transaction on the main connection with `synchronous = NORMAL` for its commit alone: in
 * WAL mode the commit is atomic and survives the process crashing, but is not fsynced, so a power
 * cut may lose it (the next FULL commit syncs it with its own). SQLite refuses to change the level
 * inside a transaction, so the connection is held from before the BEGIN until the level is back:
 * no other transaction of this process commits at NORMAL meanwhile. For the webhook sender, whose
 * fsync was an eighth of its time (bench/README.md, issue 19): a lost claim or result only makes
 * a delivery due again, which at-least-once delivery allows.
 */
function relaxedCommit(db: Db, sqlite: SQLite.Database): TransactionRunner {
  return (run) =>
    db.connection().execute(async (conn) => {
      const level = Number(sqlite.pragma('synchronous', { simple: true }));
      sqlite.pragma('synchronous = NORMAL');
      try {
        return await run(conn);
      } finally {
        sqlite.pragma(`synchronous = ${level}`);
      }
    });
}
