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

/**
 * A multi-row statement whose rows share some values (the tenant, a time): `sql(values)` writes
 * the statement around `values`, a VALUES list of `rows` rows of `columns` anonymous parameters
 * (`column1`… in a `select … from (values …)`), and the shared values are named parameters, bound
 * once per statement rather than once per row. Rows go `maxRows` to a statement; the remainder
 * gets a statement of its own size, so a connection prepares at most `maxRows` variants.
 */
export interface RowsStatement<Row> {
  /** Names the prepared variants on the connection: one per row count. */
  key: string;
  columns: number;
  maxRows: number;
  sql: (values: string) => string;
  /** Appends one row's `columns` values, in order. */
  bind: (row: Row, out: unknown[]) => void;
}

/**
 * Runs `spec` over `rows` in statements of at most maxRows rows, with `shared` bound by name in
 * each; `each` gets every statement's returned rows when the statement returns some (a plucked
 * `returning` column). Inside the caller's transaction.
 */
export function runRows<Row>(
  sqlite: SQLite.Database,
  spec: RowsStatement<Row>,
  rows: readonly Row[],
  shared: Record<string, unknown>,
  each?: (returned: unknown[]) => void,
): void {
  for (let i = 0; i < rows.length; i += spec.maxRows) {
    const n = Math.min(spec.maxRows, rows.length - i);
    const stmt = preparedOnce(sqlite, `${spec.key}:${n}`, (db) => {
      const row = `(${Array.from({ length: spec.columns }, () => '?').join(', ')})`;
      const prepared = db.prepare(spec.sql(Array.from({ length: n }, () => row).join(', ')));
      return prepared.reader ? prepared.pluck() : prepared;
    });
    const params: unknown[] = [];
    for (let j = i; j < i + n; j++) spec.bind(rows[j]!, params);
    if (each) each(stmt.all(params, shared));
    else stmt.run(params, shared);
  }
}
