import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { backend, scratchDatabase } from '../../../test/helpers/test-app.js';
import { migrations } from '../migrate.js';
import { down, up } from './0009_usage_totals.js';

const JAN = Date.UTC(2026, 0, 1);
const FEB = Date.UTC(2026, 1, 1);

describe('migration 0009: total rows in usage_aggregates and the time index of usage events', () => {
  it('adds the dimension rows of each customer, metric and month into its total row, exactly, and takes them out again on the way down', async () => {
    const { opened, drop } = await scratchDatabase('m9');
    const db = opened.db as Kysely<any>;
    try {
      const names = migrations.map(([name]) => name);
      await sql`create table tollgate_migrations (name varchar(255) primary key, applied_at bigint not null)`.execute(db);
      for (const [name, m] of migrations.slice(0, names.indexOf('0008_audit_search_postgres') + 1)) {
        await m.up(db);
        await sql`insert into tollgate_migrations (name, applied_at) values (${name}, 0)`.execute(db);
      }
      // Under 0008, '' held only the events without a dimension. One group with more rows than
      // the migration reads at a time (5,000), so it spans two reads; a decimal; a group with
      // dimension rows and no '' row; groups without dimensions; other months and tenants.
      const row = (ws: string, env: string, customer: string, metric: string, month: number, dimension: string, sum: string, count: number) => ({
        workspaceId: ws,
        environment: env,
        customerId: customer,
        metricName: metric,
        periodStart: month,
        dimension,
        quantitySum: sum,
        eventCount: count,
        updatedAt: month + count,
      });
      const before = [
        ...Array.from({ length: 5001 }, (_, i) =>
          row('ws_a', 'test', 'cus_1', 'calls', JAN, i === 0 ? '' : JSON.stringify([null, null, `/v1/r/${i}`]), '2', 1),
        ),
        row('ws_a', 'test', 'cus_1', 'calls', JAN, '["SUCCESS",null,null]', '0.25', 3),
        row('ws_a', 'test', 'cus_1', 'calls', FEB, '', '7', 7),
        row('ws_a', 'test', 'cus_1', 'tokens', JAN, '["ERROR",null,null]', '9007199254740993', 2),
        row('ws_a', 'test', 'cus_1', 'tokens', JAN, '["SUCCESS",null,null]', '9007199254740993', 2),
        row('ws_a', 'test', 'cus_2', 'calls', JAN, '', '5', 5),
        row('ws_a', 'live', 'cus_1', 'calls', JAN, '', '11', 11),
        row('ws_b', 'test', 'cus_1', 'calls', JAN, '', '13', 13),
      ];
      for (let i = 0; i < before.length; i += 500)
        await db
          .insertInto('usage_aggregates')
          .values(before.slice(i, i + 500))
          .execute();
      const rows = async () =>
        (
          await db
            .selectFrom('usage_aggregates')
            .select(['workspaceId', 'environment', 'customerId', 'metricName', 'periodStart', 'dimension', 'quantitySum', 'eventCount', 'updatedAt'])
            .orderBy('workspaceId')
            .orderBy('environment')
            .orderBy('customerId')
            .orderBy('periodStart')
            .orderBy('metricName')
            .orderBy('dimension')
            .execute()
        ).map((t) => [
          t.workspaceId,
          t.environment,
          t.customerId,
          t.metricName,
          Number(t.periodStart),
          t.dimension,
          t.quantitySum,
          Number(t.eventCount),
          Number(t.updatedAt),
        ]);
      const original = await rows();

      // 0009 alone: 0010 then moves the dimension rows to usage_hourly (its own test).
      await up(db);
      const totals = (await rows()).filter((r) => r[5] === '');
      assert.deepEqual(totals, [
        ['ws_a', 'live', 'cus_1', 'calls', JAN, '', '11', 11, JAN + 11],
        ['ws_a', 'test', 'cus_1', 'calls', JAN, '', '10002.25', 5004, JAN + 3],
        ['ws_a', 'test', 'cus_1', 'tokens', JAN, '', '18014398509481986', 4, JAN + 2],
        ['ws_a', 'test', 'cus_1', 'calls', FEB, '', '7', 7, FEB + 7],
        ['ws_a', 'test', 'cus_2', 'calls', JAN, '', '5', 5, JAN + 5],
        ['ws_b', 'test', 'cus_1', 'calls', JAN, '', '13', 13, JAN + 13],
      ]);
      assert.equal((await rows()).length, original.length + 1, 'one new total row, for the group that had none');
      const indexes = async () =>
        backend === 'postgres'
          ? (
              await sql<{
                name: string;
              }>`select indexname as name from pg_indexes where schemaname = current_schema() and tablename in ('usage_events', 'usage_aggregates')`.execute(db)
            ).rows
          : (
              await sql<{
                name: string;
              }>`select name from sqlite_master where type = 'index' and tbl_name in ('usage_events', 'usage_aggregates') and sql is not null`.execute(db)
            ).rows;
      const pk = backend === 'postgres' ? ['usage_aggregates_pk', 'usage_events_pkey'] : [];
      assert.deepEqual(
        (await indexes()).map((r) => r.name).sort(),
        ['usage_aggregates_total_customer', 'usage_aggregates_total_month', 'usage_events_tenant_time', ...pk].sort(),
      );

      await down(db);
      // Sums and counts as they were (a total row keeps the later updated_at).
      const noTime = (all: unknown[][]) => all.map((r) => r.slice(0, 8));
      assert.deepEqual(noTime(await rows()), noTime(original));
      assert.deepEqual((await indexes()).map((r) => r.name).sort(), pk);
    } finally {
      await opened.close();
      await drop();
    }
  });
});
