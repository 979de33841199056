import { sql, type Kysely, type Migration } from 'kysely';
import { isPostgres } from './database.js';
import type { Db } from './database.js';
import * as m0001 from './migrations/0001_initial.js';
import * as m0002 from './migrations/0002_usage.js';
import * as m0003 from './migrations/0003_catalog.js';
import * as m0004 from './migrations/0004_plugs.js';
import * as m0005 from './migrations/0005_audit_presets.js';
import * as m0006 from './migrations/0006_audit_stream_search.js';
import * as m0007 from './migrations/0007_audit_search_scoped.js';
import * as m0008 from './migrations/0008_audit_search_postgres.js';
import * as m0009 from './migrations/0009_usage_totals.js';
import * as m0010 from './migrations/0010_usage_hourly.js';
import * as m0011 from './migrations/0011_billing.js';
import * as m0012 from './migrations/0012_widget_sessions.js';
import * as m0014 from './migrations/0014_plan_changes.js';
import * as m0013 from './migrations/0013_retention_offers.js';
import * as m0015 from './migrations/0015_usage_event_claims.js';
import * as m0016 from './migrations/0016_outbound_webhooks.js';
import * as m0017 from './migrations/0017_outbound_webhook_trigger.js';
import * as m0018 from './migrations/0018_outbound_webhook_due_order.js';
import * as m0019 from './migrations/0019_operators.js';
import * as m0020 from './migrations/0020_hub_sessions.js';
import * as m0021 from './migrations/0021_storefront_display.js';
import * as m0022 from './migrations/0022_rate_plan_usage_limits.js';
import * as m0023 from './migrations/0023_cancellation_details.js';
import * as m0024 from './migrations/0024_metric_dimension_paths.js';
import * as m0025 from './migrations/0025_webhook_log_source_names.js';
import * as m0026 from './migrations/0026_payment_providers.js';
import * as m0027 from './migrations/0027_payments.js';
import * as m0028 from './migrations/0028_collection_method.js';
import * as m0029 from './migrations/0029_payment_provider_events.js';
import * as m0030 from './migrations/0030_provider_customers.js';
import * as m0031 from './migrations/0031_collection.js';
import * as m0032 from './migrations/0032_refunds.js';
import * as m0033 from './migrations/0033_pending_updates.js';
import * as m0034 from './migrations/0034_credits.js';
import * as m0035 from './migrations/0035_prepaid_offerings.js';
import * as m0036 from './migrations/0036_credit_settings.js';
import { setMigrationProgressReporter, type MigrationProgressReporter } from './migration-progress.js';

/** Numbered migrations, in order. Add new files here; never edit a released one. */
export const migrations: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ['0001_initial', m0001],
  ['0002_usage', m0002],
  ['0003_catalog', m0003],
  ['0004_plugs', m0004],
  ['0005_audit_presets', m0005],
  ['0006_audit_stream_search', m0006],
  ['0007_audit_search_scoped', m0007],
  ['0008_audit_search_postgres', m0008],
  ['0009_usage_totals', m0009],
  ['0010_usage_hourly', m0010],
  ['0011_billing', m0011],
  ['0012_widget_sessions', m0012],
  ['0014_plan_changes', m0014],
  ['0013_retention_offers', m0013],
  ['0015_usage_event_claims', m0015],
  ['0016_outbound_webhooks', m0016],
  ['0017_outbound_webhook_trigger', m0017],
  ['0018_outbound_webhook_due_order', m0018],
  ['0019_operators', m0019],
  ['0020_hub_sessions', m0020],
  ['0021_storefront_display', m0021],
  ['0022_rate_plan_usage_limits', m0022],
  ['0023_cancellation_details', m0023],
  ['0024_metric_dimension_paths', m0024],
  ['0025_webhook_log_source_names', m0025],
  ['0026_payment_providers', m0026],
  ['0027_payments', m0027],
  ['0028_collection_method', m0028],
  ['0029_payment_provider_events', m0029],
  ['0030_provider_customers', m0030],
  ['0031_collection', m0031],
  ['0032_refunds', m0032],
  ['0033_pending_updates', m0033],
  ['0034_credits', m0034],
  ['0035_prepaid_offerings', m0035],
  ['0036_credit_settings', m0036],
];

/**
 * Applies pending migrations in one transaction and returns the names applied now.
 *
 * Why not Kysely's Migrator: it checks for its bookkeeping table by introspecting every schema of
 * the database, which fails when another schema is dropped at that moment (test files run side by
 * side, one schema each, and CI saw exactly that). This runner only ever names its own table.
 *
 * Several nodes starting at once apply each migration exactly once: on PostgreSQL a transaction
 * advisory lock (keyed by the schema) serializes them; on SQLite `BEGIN IMMEDIATE` takes the
 * write lock before anything is read. DDL is transactional on both, so a failed migration leaves
 * nothing half-applied.
 */
export async function migrateToLatest(db: Db, opts: { progress?: MigrationProgressReporter; onMigration?: MigrationStartReporter } = {}): Promise<string[]> {
  setMigrationProgressReporter(opts.progress ?? null);
  try {
    return await applyPending(db, opts.onMigration);
  } finally {
    setMigrationProgressReporter(null);
  }
}

/** Called before each pending migration runs: its name, its position among the pending ones (from 1) and their count. */
export type MigrationStartReporter = (name: string, position: number, pending: number) => void;

async function applyPending(db: Db, onMigration: MigrationStartReporter | undefined): Promise<string[]> {
  const postgres = isPostgres(db);
  return db.connection().execute(async (conn) => {
    await sql.raw(postgres ? 'begin' : 'begin immediate').execute(conn);
    try {
      if (postgres) await sql`select pg_advisory_xact_lock(hashtext(current_schema() || '.tollgate_migrations'))`.execute(conn);
      await sql`create table if not exists tollgate_migrations (name varchar(255) primary key, applied_at bigint not null)`.execute(conn);
      const { rows } = await sql<{ name: string }>`select name from tollgate_migrations`.execute(conn);
      const done = new Set(rows.map((r) => r.name));
      const applied: string[] = [];
      const pending = migrations.filter(([name]) => !done.has(name));
      for (const [name, migration] of pending) {
        onMigration?.(name, applied.length + 1, pending.length);
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations take Kysely<any> (see eslint.config.js)
        await migration.up(conn as Kysely<any>);
        await sql`insert into tollgate_migrations (name, applied_at) values (${name}, ${Date.now()})`.execute(conn);
        applied.push(name);
      }
      await sql`commit`.execute(conn);
      return applied;
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw err;
    }
  });
}
