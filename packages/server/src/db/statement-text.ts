import { sql } from 'kysely';
import type { Db, DialectName } from './database.js';

/**
 * Statements on hot paths as SQL text made once per shape, not built with Kysely's query builder
 * each time: building and compiling a query costs more than SQLite takes to run a simple one.
 * The outbound sender runs its per-pass statements this way (a cast() fragment per value of a
 * VALUES list, a compound SELECT with a subquery per lane: its building took more CPU per delivery
 * than SQLite took to run them), and so do an entitlement check's look-ups (bench/README.md,
 * issue 40). A statement is still one raw query of Kysely's (its text and a flat list of values),
 * so the database's plugins (camelCase results) and placeholders apply as to any. Write the text
 * in the database's own column names; every value is bound, never spliced.
 */

/** A statement's text cut at its placeholders, by shape. */
const shapes = new Map<string, readonly string[]>();

/**
 * The text of one shape, written with `?` for each value (none inside a literal). `key` names the
 * shape (statement and row count): the cache is bounded by the shapes the callers make, which pad
 * their lists (paddedRows) so that they stay few.
 */
export function statementText(key: string, make: () => string): readonly string[] {
  let parts = shapes.get(key);
  if (parts === undefined) {
    parts = Object.freeze(make().split('?'));
    shapes.set(key, parts);
  }
  return parts;
}

/** Runs a statement made by statementText with its values (one per `?`), in `db` (a transaction or not); returns its rows. */
export async function runStatement<R>(db: Db, text: readonly string[], values: readonly unknown[]): Promise<R[]> {
  if (values.length !== text.length - 1) throw new Error(`statement takes ${text.length - 1} values, got ${values.length}`);
  return (await sql<R>(text as unknown as TemplateStringsArray, ...values).execute(db)).rows;
}

/** Rows a padded list is rounded up to. */
const PAD = 16;

/**
 * How many rows a VALUES list of `n` is given: SQLite keeps one prepared statement per text
 * (db/database.ts), and a text per row count would push the rest of the service's statements out
 * of that cache; padded to a multiple of 16 (rows that match nothing), a chunk of 500 has 32 texts
 * at most. PostgreSQL prepares nothing across calls: exact.
 */
export function paddedRows(dialect: DialectName, n: number): number {
  return dialect === 'sqlite' ? Math.ceil(n / PAD) * PAD : n;
}

/** `(?, ?, …)` groups for a VALUES list: `rows` groups of `row`, the casts PostgreSQL needs to type a VALUES column included. */
export function valuesList(row: string, rows: number): string {
  return Array.from({ length: rows }, () => row).join(', ');
}
