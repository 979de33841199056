/**
 * How a command fails. An expected failure (a refused operation, a missing file, a port in use, a
 * database that cannot be opened or stops answering) is printed as one line, `tollgate: <what
 * went wrong>`, with a hint line when there is something to do about it; only a bug gets a stack.
 */
import { classifyDatabaseError } from '../db/errors.js';
import { AppError } from '../lib/errors.js';
import { describeSystemError, type SystemFailure } from '../lib/system-errors.js';

/** A failure the user can act on, thrown from anywhere in a command and printed by index.ts. */
export class CliFailure extends Error {
  readonly hint?: string;
  /** 1 by default; 2 when the command was called wrongly. */
  readonly exitCode: number;
  constructor(message: string, opts: { hint?: string; exitCode?: number } = {}) {
    super(message);
    this.hint = opts.hint;
    this.exitCode = opts.exitCode ?? 1;
  }
}

/** SQLite's codes for a file it cannot use (better-sqlite3's SqliteError.code). */
const SQLITE_FILE = /^SQLITE_(CANTOPEN|READONLY|FULL|NOTADB|CORRUPT|PERM|IOERR)/;

/** An expected failure in words, or null for a bug (whose stack is worth printing). */
export function describeFailure(err: unknown): SystemFailure | null {
  if (err instanceof CliFailure) return { message: err.message, hint: err.hint };
  // An operation refused its input (a 4xx over HTTP): its message names the field.
  if (err instanceof AppError && err.status < 500) {
    const field = err.details[0]?.field;
    return { message: `${err.message}${field ? ` (${field})` : ''}` };
  }
  const system = describeSystemError(err);
  if (system) return system;
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && SQLITE_FILE.test(code)) return { message: `SQLite: ${String(message)}` };
  const database = classifyDatabaseError(err);
  if (database === 'busy') return { message: `the database is busy (${String(message)})`, hint: 'Another process holds its write lock; try again.' };
  if (database === 'unavailable') return { message: `the database stopped answering (${String(message)})` };
  return null;
}
