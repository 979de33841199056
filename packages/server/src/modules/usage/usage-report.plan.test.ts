import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { backend, createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { TenantHandle } from '../../../test/helpers/seed.js';
import { recordingPlans, type QueryPlan } from '../../../test/helpers/query-plans.js';
import { createMetric } from '../metrics/create-metric.js';
import { reportUsage, type UsageQuery } from './usage-report.js';

/** Other tenants' events and aggregate rows, so that PostgreSQL's planner weighs real tables. */
const OTHER_ROWS = 20_000;

let t: TestApp;
let ws: TenantHandle;
let small: string;

before(async () => {
  t = await createTestApp();
  t.clock.set(Date.UTC(2026, 1, 10, 12));
  ws = await t.seed.workspace();
  for (const name of ['api_calls', 'tokens']) await createMetric(t.deps, ws.test.ctx, { name });
  small = (await t.seed.customer(ws.test)).id;
  const api = t.seed.client(ws.test.secretKey);
  const events = ['GET', 'POST', 'GET'].map((method, i) => ({
    customerId: small,
    metricName: 'api_calls',
    quantity: 1,
    occurredAt: `2026-02-0${i + 1}T10:00:00Z`,
    metadata: { method },
  }));
  events.push({ customerId: small, metricName: 'tokens', quantity: 5, occurredAt: '2026-02-04T10:00:00Z', metadata: { method: 'GET' } });
  assert.equal((await api.post('/v1/ingest/batch', { events })).status, 200);
  const db = t.deps.db;
  const feb = Date.UTC(2026, 1, 1);
  if (backend === 'postgres') {
    await sql`insert into usage_events (workspace_id, environment, customer_id, metric_name, quantity, occurred_at, period_start, received_at, metadata, source)
      select 'ws_other' || (i % 50), 'test', 'cus_' || (i % 1000), 'api_calls', '1', ${feb}::bigint + i, ${feb}::bigint, 0, '{"method":"GET"}', 'api' from generate_series(1, ${OTHER_ROWS}) as i`.execute(
      db,
    );
    await sql`insert into usage_aggregates (workspace_id, environment, customer_id, metric_name, period_start, dimension, quantity_sum, event_count, updated_at)
      select 'ws_other' || (i % 50), 'test', 'cus_' || i, 'api_calls', ${feb}::bigint, d, '1', 1, 0 from generate_series(1, ${OTHER_ROWS}) as i, (values (''), ('["SUCCESS",null,null]')) as t(d)`.execute(
      db,
    );
    await sql`analyze usage_events`.execute(db);
    await sql`analyze usage_aggregates`.execute(db);
  } else {
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${OTHER_ROWS})
      insert into usage_events (workspace_id, environment, customer_id, metric_name, quantity, occurred_at, period_start, received_at, metadata, source)
      select 'ws_other' || (i % 50), 'test', 'cus_' || (i % 1000), 'api_calls', '1', ${feb} + i, ${feb}, 0, '{"method":"GET"}', 'api' from n`.execute(db);
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${OTHER_ROWS}), dims(d) as (values (''), ('["SUCCESS",null,null]'))
      insert into usage_aggregates (workspace_id, environment, customer_id, metric_name, period_start, dimension, quantity_sum, event_count, updated_at)
      select 'ws_other' || (i % 50), 'test', 'cus_' || i, 'api_calls', ${feb}, d, '1', 1, 0 from n, dims`.execute(db);
  }
});
after(() => t.close());

/** Runs a report and returns the plan of every query it ran against the usage tables. */
async function plansOf(q: UsageQuery, eventsPerRead?: number): Promise<QueryPlan[]> {
  const recording = recordingPlans(t.deps, /usage_(events|aggregates)/);
  const page = await reportUsage(recording.deps, ws.test.ctx, q, eventsPerRead ? { eventsPerRead } : {});
  assert.ok(page.items.length > 0, 'the report found the small customer’s usage');
  return recording.plans();
}

describe('GET /api/v1/usage query plans', () => {
  it('groupBy reads its tenant’s month through the (tenant, occurred_at, customer_id) index, in index order, never a scan of usage_events', async () => {
    // One index entry a read: each read after the first resumes after the last position.
    const plans = await plansOf({ groupBy: 'method' }, 1);
    const events = plans.filter((p) => /from "usage_events"/.test(p.sql));
    for (const { plan } of events) {
      assert.match(plan, /usage_events_tenant_time/, plan);
      // Bounded by the tenant and the month inside the index.
      assert.match(plan, /workspace_id ?= ?(\?|')/, plan);
      assert.match(plan, /occurred_at ?< ?/, plan);
      assert.doesNotMatch(plan, /SCAN usage_events|Seq Scan on usage_events/, plan);
      // Positions come in index order, so OFFSET and LIMIT stop the read.
      assert.doesNotMatch(plan, /TEMP B-TREE|Sort/, plan);
    }
    // Per read: the position of its last entry, then the rows up to it. Four reads of one entry
    // each, then one that finds no position and reads what is left: nothing.
    assert.equal(events.length, 2 * 5, 'the four events of the small tenant’s month, one at a time');
  });

  /** The query of the page after the first row of `q`. */
  const secondPage = async (q: UsageQuery): Promise<UsageQuery> => ({
    ...q,
    limit: 1,
    startingAfter: (await reportUsage(t.deps, ws.test.ctx, { ...q, limit: 1 })).items[0]!.id,
  });
  const cases: Array<[label: string, query: () => Promise<UsageQuery>]> = [
    ['the month list of a groupBy report', async () => ({ groupBy: 'method' })],
    ['the month list of a second groupBy page', () => secondPage({ groupBy: 'method' })],
    ['a report without groupBy', async () => ({})],
    ['a second page without groupBy', () => secondPage({})],
    ['a report of one customer', async () => ({ customerId: small })],
    ['a second page of one customer', () => secondPage({ customerId: small })],
  ];
  for (const [label, query] of cases) {
    it(`${label} reads the total rows of usage_aggregates through their index, never a scan`, async () => {
      const q = await query();
      const plans = await plansOf(q);
      const totals = plans.filter((p) => /from "usage_aggregates"/.test(p.sql));
      assert.ok(totals.length > 0);
      for (const { plan } of totals) {
        assert.match(plan, /usage_aggregates_total_(month|customer)/, plan);
        assert.doesNotMatch(plan, /SCAN usage_aggregates|Seq Scan on usage_aggregates/, plan);
        // A later page starts at its cursor inside the index, not by skipping the rows before it.
        if (q.startingAfter && !q.customerId)
          assert.match(plan, /\(period_start,customer_id(,metric_name)?\)>|Index Cond: .*ROW\(period_start, customer_id/, plan);
      }
    });
  }
});
