import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { adminQuery, backend } from '../../../test/helpers/test-app.js';
import { openDatabase, type OpenedDatabase } from '../database.js';
import { migrations, migrateToLatest } from '../migrate.js';
import { down } from './0009_usage_totals.js';

const JAN = Date.UTC(2026, 0, 1);
const FEB = Date.UTC(2026, 1, 1);

/** A database of this test's backend: in-memory SQLite, or a schema of its own on PostgreSQL. */
async function scratch(): Promise<{ opened: OpenedDatabase; drop: () => Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (backend !== 'postgres' || !url) return { opened: openDatabase({ databaseUrl: null, sqlitePath: ':memory:' }), drop: async () => undefined };
  const schema = `m9_${randomBytes(6).toString('hex')}`;
  await adminQuery(url, `CREATE SCHEMA ${schema}`);
  return { opened: openDatabase({ databaseUrl: url, pgSchema: schema, poolSize: 2 }), drop: () => adminQuery(url, `DROP SCHEMA ${schema} CASCADE`) };
}

describe('migration 0009: usage totals and the customer index of usage events', () => {
  it('sums the aggregate rows of each customer, metric and month into one total, exactly, and goes back down', async () => {
    const { opened, drop } = await scratch();
    const db = opened.db as Kysely<any>;
    try {
      const names = migrations.map(([name]) => name);
      await sql`create table tollgate_migrations (name varchar(255) primary key, applied_at bigint not null)`.execute(db);
      for (const [name, m] of migrations.slice(0, names.indexOf('0008_audit_search_postgres') + 1)) {
        await m.up(db);
        await sql`insert into tollgate_migrations (name, applied_at) values (${name}, 0)`.execute(db);
      }
      // One total with more dimension rows than the migration reads at a time (5,000), so it
      // spans two reads; a decimal among them; and totals of other customers, months and tenants.
      const row = (ws: string, env: string, customer: string, metric: string, month: number, dimension: string, sum: string, count: number) => ({
        workspaceId: ws, environment: env, customerId: customer, metricName: metric, periodStart: month, dimension, quantitySum: sum, eventCount: count, updatedAt: month + count,
      });
      const rows = [
        ...Array.from({ length: 5001 }, (_, i) => row('ws_a', 'test', 'cus_1', 'calls', JAN, i === 0 ? '' : JSON.stringify([null, null, `/v1/r/${i}`]), '2', 1)),
        row('ws_a', 'test', 'cus_1', 'calls', JAN, '["SUCCESS",null,null]', '0.25', 3),
        row('ws_a', 'test', 'cus_1', 'calls', FEB, '', '7', 7),
        row('ws_a', 'test', 'cus_1', 'tokens', JAN, '', '9007199254740993', 2),
        row('ws_a', 'test', 'cus_1', 'tokens', JAN, '["ERROR",null,null]', '9007199254740993', 2),
        row('ws_a', 'test', 'cus_2', 'calls', JAN, '', '5', 5),
        row('ws_a', 'live', 'cus_1', 'calls', JAN, '', '11', 11),
        row('ws_b', 'test', 'cus_1', 'calls', JAN, '', '13', 13),
      ];
      for (let i = 0; i < rows.length; i += 500) await db.insertInto('usage_aggregates').values(rows.slice(i, i + 500)).execute();

      assert.deepEqual(await migrateToLatest(opened.db), names.slice(names.indexOf('0009_usage_totals')));
      const totals = await db
        .selectFrom('usage_totals')
        .select(['workspaceId', 'environment', 'customerId', 'metricName', 'periodStart', 'quantitySum', 'eventCount', 'updatedAt'])
        .orderBy('workspaceId').orderBy('environment').orderBy('customerId').orderBy('periodStart').orderBy('metricName')
        .execute();
      assert.deepEqual(
        totals.map((t) => [t.workspaceId, t.environment, t.customerId, t.metricName, Number(t.periodStart), t.quantitySum, Number(t.eventCount), Number(t.updatedAt)]),
        [
          ['ws_a', 'live', 'cus_1', 'calls', JAN, '11', 11, JAN + 11],
          ['ws_a', 'test', 'cus_1', 'calls', JAN, '10002.25', 5004, JAN + 3],
          ['ws_a', 'test', 'cus_1', 'tokens', JAN, '18014398509481986', 4, JAN + 2],
          ['ws_a', 'test', 'cus_1', 'calls', FEB, '7', 7, FEB + 7],
          ['ws_a', 'test', 'cus_2', 'calls', JAN, '5', 5, JAN + 5],
          ['ws_b', 'test', 'cus_1', 'calls', JAN, '13', 13, JAN + 13],
        ],
      );
      const indexes = async () =>
        backend === 'postgres'
          ? (await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and tablename in ('usage_events', 'usage_totals')`.execute(db)).rows
          : (await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name in ('usage_events', 'usage_totals') and sql is not null`.execute(db)).rows;
      assert.deepEqual((await indexes()).map((r) => r.name).sort(), ['usage_events_tenant_time', 'usage_totals_month', ...(backend === 'postgres' ? ['usage_events_pkey', 'usage_totals_pk'] : [])].sort());

      await down(db);
      assert.deepEqual((await indexes()).map((r) => r.name), backend === 'postgres' ? ['usage_events_pkey'] : []);
    } finally {
      await opened.close();
      await drop();
    }
  });
});
