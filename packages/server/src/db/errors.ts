import { AppError } from '../lib/errors.js';

/** True when a write failed on a unique index, in either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string } | null;
  return !!e && (e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY');
}

/** Seconds a client is told to wait when the database is away or busy. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
export const DATABASE_BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * Why a database call failed when it was nobody's input: 'unavailable' (the server is down,
 * restarting, unreachable or too slow to answer), 'busy' (SQLite's write lock stayed taken past
 * the busy timeout), or null for anything else (a bug or a constraint, handled elsewhere).
 */
export type DatabaseFailure = 'unavailable' | 'busy';

// PostgreSQL SQLSTATEs: 08 connection exceptions, 57P0x shutdown and start-up, 57014 a statement
// cancelled by statement_timeout, 53xxx out of resources (too many connections), 25P03 a
// transaction ended by idle_in_transaction_session_timeout.
const PG_UNAVAILABLE = /^(08...|57P0[1-4]|57014|53...|25P03)$/;
// Node's socket errors and what node-postgres and pg-pool say when a connection dies or never comes.
const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);
const PG_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'the database system is',
];
// SQLite: the write lock stayed held (BUSY/LOCKED), or the disk failed or filled (IOERR, FULL).
const SQLITE_BUSY = /^SQLITE_(BUSY|LOCKED)/;
const SQLITE_UNAVAILABLE = /^SQLITE_(IOERR|FULL|CANTOPEN|READONLY)/;

export function classifyDatabaseError(err: unknown): DatabaseFailure | null {
  // Errors may come wrapped (the usage writer thread, AggregateError from a pool): look a few causes deep.
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = textOf((e as { code?: unknown }).code);
    const message = textOf((e as { message?: unknown }).message);
    if (SQLITE_BUSY.test(code)) return 'busy';
    if (SQLITE_UNAVAILABLE.test(code) || PG_UNAVAILABLE.test(code) || NET_CODES.has(code)) return 'unavailable';
    if (PG_MESSAGES.some((m) => message.includes(m))) return 'unavailable';
    if (e instanceof AggregateError && e.errors.some((x) => classifyDatabaseError(x) !== null)) return 'unavailable';
  }
  return null;
}

/** The 503 a request gets for a database failure, or null when the error is not one. */
export function databaseFailureError(err: unknown): AppError | null {
  const failure = classifyDatabaseError(err);
  if (failure === 'busy') {
    return new AppError('DATABASE_BUSY', `The database is busy with other writes; retry after ${DATABASE_BUSY_RETRY_AFTER_SECONDS} second.`, {
      headers: { 'retry-after': String(DATABASE_BUSY_RETRY_AFTER_SECONDS) },
      cause: err,
    });
  }
  if (failure === 'unavailable') {
    return new AppError(
      'DATABASE_UNAVAILABLE',
      `The database is not answering. Retry after ${DATABASE_RETRY_AFTER_SECONDS} seconds (with the same idempotency key, if you sent one).`,
      {
        headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
        cause: err,
      },
    );
  }
  return null;
}

/** A property of an unknown error as text (codes and messages are strings, errnos numbers): '' otherwise. */
function textOf(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}
