import type SQLite from 'better-sqlite3';

const statements = new WeakMap<SQLite.Database, Map<string, SQLite.Statement>>();

/**
 * The statement named `key` on this connection, prepared by `prepare` the first time only: the
 * usage write path's multi-row statements (64 rows each) run on the raw better-sqlite3 handle, and
 * building and preparing their text for every batch would cost as much as running them. A
 * statement re-prepares itself after a schema change.
 */
export function preparedOnce(sqlite: SQLite.Database, key: string, prepare: (sqlite: SQLite.Database) => SQLite.Statement): SQLite.Statement {
  let byKey = statements.get(sqlite);
  if (!byKey) statements.set(sqlite, (byKey = new Map<string, SQLite.Statement>()));
  let stmt = byKey.get(key);
  if (!stmt) byKey.set(key, (stmt = prepare(sqlite)));
  return stmt;
}
