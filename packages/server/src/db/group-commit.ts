import { sql } from 'kysely';
import type { Db } from './database.js';
import { AppError } from '../lib/errors.js';
import { transaction } from './transaction.js';

interface Job {
  work: (trx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: write requests that arrive while a commit is under way share the next
 * transaction, so one disk flush (0.2-0.35 ms here) serves many batches. Each job runs inside its
 * own savepoint, so one job's failure (an idempotency conflict, say) rolls back only that job.
 * A job's promise settles only after the transaction that holds it has committed.
 *
 * It also gives ingestion its one yield point: requests queue here, visibly, instead of inside
 * the event loop, which is what lets admission control count them.
 */
export class GroupCommitter {
  private queue: Job[] = [];
  private flushing = false;

  constructor(
    private readonly db: Db,
    private readonly maxJobsPerCommit = 32,
  ) {}

  run<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const jobs = this.queue.splice(0, this.maxJobsPerCommit);
    try {
      const outcomes = await this.commitGroup(jobs);
      jobs.forEach((job, i) => {
        const o = outcomes[i]!;
        if (o.ok) job.resolve(o.value);
        else job.reject(o.err);
      });
    } catch (err) {
      // The commit itself failed: nothing of this group is stored.
      for (const job of jobs) job.reject(err);
    } finally {
      if (this.queue.length > 0) setImmediate(() => void this.flush());
      else this.flushing = false;
    }
  }

  /** One transaction for the group, every job in its own savepoint; run again on a transient failure. */
  private commitGroup(jobs: Job[]): Promise<Outcome[]> {
    return transactionWithRetry(this.db, async (trx) => {
      const outcomes: Outcome[] = [];
      for (const job of jobs) {
        await sql`savepoint group_job`.execute(trx);
        try {
          const value = await job.work(trx);
          await sql`release savepoint group_job`.execute(trx);
          outcomes.push({ ok: true, value });
        } catch (err) {
          if (isTransient(err)) throw err;
          await sql`rollback to savepoint group_job`.execute(trx);
          await sql`release savepoint group_job`.execute(trx);
          outcomes.push({ ok: false, err });
        }
      }
      return outcomes;
    });
  }
}

/**
 * A transaction that runs again when it fails for nobody's fault: a deadlock or serialization
 * failure (two groups touched the same aggregate rows in different orders). Up to MAX_ATTEMPTS;
 * past that the caller gets 503 and clients retry under their idempotency keys.
 */
export async function transactionWithRetry<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction(db, work);
    } catch (err) {
      if (!isTransient(err)) throw err;
      if (attempt >= MAX_ATTEMPTS) {
        throw new AppError('SERVICE_UNAVAILABLE', 'The database was busy with conflicting writes; retry after 1 second.', {
          headers: { 'retry-after': '1' },
          cause: err,
        });
      }
    }
  }
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

const MAX_ATTEMPTS = 3;
/** PostgreSQL's deadlock_detected and serialization_failure: the transaction may simply run again. */
const TRANSIENT_CODES = new Set(['40P01', '40001']);

export function isTransient(err: unknown): boolean {
  return typeof err === 'object' && err !== null && TRANSIENT_CODES.has(String((err as { code?: unknown }).code));
}

/**
 * Group commit where one function writes the whole group: multi-row statements for all of its
 * jobs instead of a few statements and a savepoint per job. For webhooks, where a job is one
 * small event and per-job statements cost far more than the data. A job's promise settles after
 * the commit. If the group fails for a reason that is not transient, each job runs again alone,
 * so one bad job fails only itself.
 */
export class BatchCommitter<J, R> {
  private queue: Array<{ job: J; resolve: (value: R) => void; reject: (err: unknown) => void }> = [];
  private flushing = false;

  constructor(
    private readonly db: Db,
    private readonly writeGroup: (trx: Db, jobs: J[]) => Promise<R[]>,
    private readonly maxJobsPerCommit = 128,
  ) {}

  run(job: J): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue.splice(0, this.maxJobsPerCommit);
    try {
      const results = await transactionWithRetry(this.db, (trx) =>
        this.writeGroup(
          trx,
          batch.map((b) => b.job),
        ),
      );
      batch.forEach((b, i) => b.resolve(results[i]!));
    } catch (err) {
      const busy = err instanceof AppError && err.code === 'SERVICE_UNAVAILABLE';
      if (batch.length === 1 || busy) {
        for (const b of batch) b.reject(err);
      } else {
        for (const b of batch) {
          try {
            const [result] = await transactionWithRetry(this.db, (trx) => this.writeGroup(trx, [b.job]));
            b.resolve(result!);
          } catch (alone) {
            b.reject(alone);
          }
        }
      }
    } finally {
      if (this.queue.length > 0) setImmediate(() => void this.flush());
      else this.flushing = false;
    }
  }
}
