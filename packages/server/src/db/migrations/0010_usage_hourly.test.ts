import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal } from 'decimal.js';
import { sql, type Kysely } from 'kysely';
import { backend, scratchDatabase } from '../../../test/helpers/test-app.js';
import { migrations, migrateToLatest } from '../migrate.js';
import { down } from './0010_usage_hourly.js';

const Exact = Decimal.clone({ precision: 200 });
const HOUR = 3_600_000;
const JAN = Date.UTC(2026, 0, 1);
const FEB = Date.UTC(2026, 1, 1);

interface Event {
  workspaceId: string;
  environment: string;
  customerId: string;
  metricName: string;
  quantity: string;
  occurredAt: number;
  metadata: string | null;
}

const monthOf = (t: number) => Date.UTC(new Date(t).getUTCFullYear(), new Date(t).getUTCMonth(), 1);
/** The rating dimension as the write path computes it (rating-dimension.ts). */
function dimensionOf(metadata: string | null): string {
  if (metadata === null) return '';
  const m = JSON.parse(metadata) as Record<string, unknown>;
  const s = (v: unknown) => (typeof v === 'string' ? v : null);
  const key = [s(m.executionStatus), s(m.tool), s(m.endpoint)];
  return key.every((v) => v === null) ? '' : JSON.stringify(key);
}

/** Rows (as sorted tuples) summing events by a bucket, with '' totals and dimension shares. */
function reference(events: readonly Event[], bucket: (t: number) => number, withTotals: boolean): unknown[][] {
  const groups = new Map<string, { key: unknown[]; sum: InstanceType<typeof Exact>; count: number }>();
  const add = (key: unknown[], q: string) => {
    const k = JSON.stringify(key);
    const g = groups.get(k) ?? { key, sum: new Exact(0), count: 0 };
    g.sum = g.sum.plus(q);
    g.count += 1;
    groups.set(k, g);
  };
  for (const e of events) {
    const base = [e.workspaceId, e.environment, e.customerId, e.metricName, bucket(e.occurredAt)];
    if (withTotals) add([...base, ''], e.quantity);
    const d = dimensionOf(e.metadata);
    if (d !== '') add([...base, d], e.quantity);
  }
  return [...groups.values()].map((g) => [...g.key, g.sum.toFixed(), g.count]).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

describe('migration 0010: usage_hourly from usage_events, and usage_aggregates without dimension rows', () => {
  it('sums every event into its hour exactly, with dimension shares, drops the monthly dimension rows, and puts them back on the way down', async () => {
    const { opened, drop } = await scratchDatabase('m10');
    const db = opened.db as Kysely<any>;
    try {
      const names = migrations.map(([name]) => name);
      await sql`create table tollgate_migrations (name varchar(255) primary key, applied_at bigint not null)`.execute(db);
      for (const [name, m] of migrations.slice(0, names.indexOf('0009_usage_totals') + 1)) {
        await m.up(db);
        await sql`insert into tollgate_migrations (name, applied_at) values (${name}, 0)`.execute(db);
      }
      const ev = (ws: string, env: string, customer: string, metric: string, quantity: string, occurredAt: number, metadata: unknown = null): Event => ({
        workspaceId: ws,
        environment: env,
        customerId: customer,
        metricName: metric,
        quantity,
        occurredAt,
        metadata: metadata === null ? null : JSON.stringify(metadata),
      });
      const noon = Date.UTC(2026, 0, 15, 12);
      const events: Event[] = [
        // One tenant's hour with more events than the migration reads at a time (5,000).
        ...Array.from({ length: 6001 }, (_, i) =>
          ev('ws_a', 'test', `cus_${i % 3}`, 'calls', '1', noon + (i % 3_600_000), i % 4 === 0 ? { endpoint: `/r/${i % 7}` } : null),
        ),
        ev('ws_a', 'test', 'cus_0', 'calls', '2', noon - 1),
        ev('ws_a', 'test', 'cus_0', 'calls', '4', noon + HOUR),
        ev('ws_a', 'test', 'cus_0', 'gb', '0.1', noon, { executionStatus: 'SUCCESS', tool: 'search' }),
        ev('ws_a', 'test', 'cus_0', 'gb', '0.2', noon + 5, { executionStatus: 'SUCCESS', tool: 'search' }),
        ev('ws_a', 'test', 'cus_0', 'gb', '0.000001', noon + 6, { executionStatus: 7, other: 'x' }),
        ev('ws_a', 'test', 'cus_0', 'big', '999999999999999', FEB - 1),
        ev('ws_a', 'test', 'cus_0', 'big', '999999999999999', FEB - 2),
        ...Array.from({ length: 9 }, () => ev('ws_a', 'test', 'cus_0', 'big', '999999999999999', FEB + 5)),
        ev('ws_a', 'live', 'cus_0', 'calls', '11', noon),
        ev('ws_b', 'test', 'cus_0', 'calls', '13', noon, { endpoint: '/x' }),
        ev('ws_b', 'test', 'cus_9', 'calls', '17', JAN),
      ];
      const rows = events.map((e, i) => ({
        ...e,
        periodStart: monthOf(e.occurredAt),
        receivedAt: e.occurredAt + 1,
        eventId: null,
        source: 'api',
        seq: undefined,
        _i: i,
      }));
      for (let i = 0; i < rows.length; i += 400)
        await db
          .insertInto('usage_events')
          .values(rows.slice(i, i + 400).map(({ seq: _seq, _i, ...r }) => r))
          .execute();
      // usage_aggregates as 0009's write path left it: monthly totals and dimension shares.
      const monthly = reference(events, monthOf, true);
      for (let i = 0; i < monthly.length; i += 400)
        await db
          .insertInto('usage_aggregates')
          .values(
            monthly.slice(i, i + 400).map(([ws, env, customer, metric, periodStart, dimension, sum, count]) => ({
              workspaceId: ws,
              environment: env,
              customerId: customer,
              metricName: metric,
              periodStart,
              dimension,
              quantitySum: sum,
              eventCount: count,
              updatedAt: 1,
            })),
          )
          .execute();

      assert.deepEqual((await migrateToLatest(opened.db))[0], '0010_usage_hourly', 'the first migration pending');

      const hourly = (
        await db
          .selectFrom('usage_hourly')
          .select(['workspaceId', 'environment', 'customerId', 'metricName', 'hourStart', 'dimension', 'quantitySum', 'eventCount'])
          .execute()
      )
        .map((r) => [r.workspaceId, r.environment, r.customerId, r.metricName, Number(r.hourStart), r.dimension, r.quantitySum, Number(r.eventCount)])
        .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
      assert.deepEqual(
        hourly,
        reference(events, (t) => Math.floor(t / HOUR) * HOUR, true),
      );
      const aggregates = async () =>
        (
          await db
            .selectFrom('usage_aggregates')
            .select(['workspaceId', 'environment', 'customerId', 'metricName', 'periodStart', 'dimension', 'quantitySum', 'eventCount'])
            .execute()
        )
          .map((r) => [r.workspaceId, r.environment, r.customerId, r.metricName, Number(r.periodStart), r.dimension, r.quantitySum, Number(r.eventCount)])
          .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
      assert.deepEqual(
        await aggregates(),
        monthly.filter((r) => r[5] === ''),
        'the monthly total rows stay, the dimension rows go',
      );
      const big = hourly.filter((r) => r[3] === 'big' && r[5] === '').map((r) => r[6]);
      assert.deepEqual(big, ['1999999999999998', '8999999999999991']);

      await down(db);
      assert.deepEqual(await aggregates(), monthly, 'the monthly dimension rows are back, exactly');
      const tables =
        backend === 'postgres'
          ? (await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema()`.execute(db)).rows
          : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows;
      assert.ok(!tables.some((r) => r.name === 'usage_hourly'));
    } finally {
      await opened.close();
      await drop();
    }
  });
});
