import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KyselyPlugin } from 'kysely';
import { backend, createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client } from '../../../test/helpers/seed.js';
import { recordingPlans } from '../../../test/helpers/query-plans.js';
import type { Deps } from '../../deps.js';
import { createDemoWorkspace, type DemoEnvironment } from '../../demo/create-demo-workspace.js';
import { checkEntitlement } from '../entitlements/check-entitlement.js';
import { findSubscription } from '../subscriptions/subscription.repository.js';
import { rateSubscriptionPeriod } from './rate-subscription-period.js';
import type { Tenant } from '../../lib/tenant.js';

/** Distinct endpoint values a customer sends: each one is an aggregate row of its own. */
const ENDPOINTS = 3000;

let t: TestApp;
let env: DemoEnvironment;
let api: Client;
let tenant: Tenant;

before(async () => {
  t = await createTestApp();
  const d = await createDemoWorkspace(t.deps, { actor: { type: 'OPERATOR', id: 'test' }, source: 'cli', correlationId: 'test' });
  env = d.environments.test;
  tenant = { workspaceId: d.workspaceId, environment: 'test' };
  api = t.seed.client(env.secretKey);
});
after(() => t.close());

/** `quantity` of api_calls for each of ENDPOINTS distinct endpoints (`/v1/r/0`, `/v1/r/1`, …). */
async function useManyEndpoints(customerId: string, metricName: string) {
  const occurredAt = new Date(t.clock.now()).toISOString();
  for (let i = 0; i < ENDPOINTS; i += 1000) {
    const events = Array.from({ length: 1000 }, (_, j) => ({ customerId, metricName, quantity: 1, occurredAt, metadata: { endpoint: `/v1/r/${i + j}` } }));
    const res = await api.post('/v1/ingest/batch', { events });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
}

/** deps whose database counts the rows every query returns. */
function counting(): { deps: Deps; rows: () => number } {
  let rows = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      rows += args.result.rows.length;
      return args.result;
    },
  };
  return { deps: { ...t.deps, db: t.deps.db.withPlugin(plugin) }, rows: () => rows };
}

describe('rateSubscriptionPeriod with thousands of distinct endpoints', () => {
  it('an entitlement check and the upcoming invoice read the totals, not a row per endpoint, when no unit prices endpoints', async () => {
    await useManyEndpoints(env.customerId, 'api_calls');
    const check = counting();
    const answer = await checkEntitlement(check.deps, tenant, env.customerId, env.productId);
    // Pro's api_calls allowance is 100,000 units: the quota left after 3,000.
    assert.equal(answer.quotaRemaining, 100_000 - ENDPOINTS);
    assert.ok(check.rows() < 30, `the check read ${check.rows()} rows`);
    // And reads no more rows than it returns, in one statement: the partial indexes of the monthly
    // and hourly total rows (the latter alone), sought by customer and month or hour, summed by the
    // database, never the dimension rows. The demo period starts and ends on the hour, so no raw
    // events are read.
    const recording = recordingPlans(t.deps, /usage_hourly|usage_aggregates|usage_events/);
    await checkEntitlement(recording.deps, tenant, env.customerId, env.productId);
    const plans = await recording.plans();
    assert.equal(plans.length, 1, plans.map((p) => p.sql).join('\n'));
    const plan = plans[0]!.plan;
    assert.match(plans[0]!.sql, /usage_aggregates.* union all /, plans[0]!.sql);
    assert.match(plan, /usage_hourly_total/, plan);
    // PostgreSQL may take the month index on tables this small: the same rows, a tie in cost.
    assert.match(plan, backend === 'postgres' ? /usage_aggregates_total_(customer|month)/ : /usage_aggregates_total_customer/, plan);
    assert.match(plan, /customer_id ?= ?(\?|')/, plan);
    assert.doesNotMatch(plan, /SCAN usage_|Seq Scan/, plan);
    if (process.env.SHOW_PLANS) console.log(plan);

    const sub = await findSubscription(t.deps.db, tenant, env.subscriptionId);
    const invoice = counting();
    const rated = await rateSubscriptionPeriod(invoice.deps, tenant, sub!, t.clock.now());
    assert.equal(rated.rating.lines.find((l) => l.metricName === 'api_calls')?.quantity, String(ENDPOINTS));
    assert.ok(invoice.rows() < 30, `the invoice read ${invoice.rows()} rows`);
  });

  it('a unit with endpoint multipliers still rates every endpoint by its factor, and usage without an endpoint at 1', async () => {
    const metric = await api.post('/api/v1/metrics', { name: 'routed_calls' });
    assert.equal(metric.status, 200, JSON.stringify(metric.body));
    const plan = await api.post('/api/v1/rate-plans', {
      name: 'Routed',
      currency: 'USD',
      billingPeriod: 'MONTHLY',
      metrics: [{ metricName: 'routed_calls', pricingModel: 'PER_UNIT', rate: '0.01', endpointMultipliers: { '/v1/r/7': '100', '/v1/r/8': '0' } }],
    });
    assert.equal(plan.status, 200, JSON.stringify(plan.body));
    const offering = await api.post('/api/v1/offerings', {
      productId: env.productId,
      name: 'Routed',
      currency: 'USD',
      billingPeriod: 'MONTHLY',
      ratePlanIds: [plan.body.id],
    });
    assert.equal(offering.status, 200, JSON.stringify(offering.body));
    const customer = await api.post('/api/v1/customers', { name: 'Router', externalId: 'router' });
    const sub = await api.post('/api/v1/subscriptions', { customerId: customer.body.id, offeringId: offering.body.id });
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    await useManyEndpoints(customer.body.id, 'routed_calls');
    const withoutEndpoint = await api.post('/v1/ingest', {
      customerId: customer.body.id,
      metricName: 'routed_calls',
      quantity: 5,
      occurredAt: new Date(t.clock.now()).toISOString(),
    });
    assert.equal(withoutEndpoint.status, 200, JSON.stringify(withoutEndpoint.body));

    const inv = (await api.get(`/api/v1/subscriptions/${sub.body.id}/upcoming-invoice`)).body;
    // 2,998 endpoints at 1, /v1/r/7 at 100, /v1/r/8 at 0, and 5 units without an endpoint at 1:
    // 3,103 units x 0.01 = 31.03.
    const line = inv.lines.find((l: { metricName: string | null }) => l.metricName === 'routed_calls');
    assert.deepEqual([line.quantity, line.amount], ['3103', '31.03']);
  });
});

describe('rateSubscriptionPeriod with a metric whose dimensions are at nested metadata paths', () => {
  it('tool multipliers and outcome weights price the values at the metric’s paths, and the raw hour before the period start is read at them too', async () => {
    const MINUTE = 60_000;
    const hour = Date.UTC(2026, 0, 20, 9);
    t.clock.set(hour + 30 * MINUTE);
    const metric = await api.post('/api/v1/metrics', { name: 'tool_calls', dimensionPaths: { tool: 'call.tool', executionStatus: 'result.status' } });
    assert.equal(metric.status, 200, JSON.stringify(metric.body));
    const plan = await api.post('/api/v1/rate-plans', {
      name: 'Tools',
      currency: 'USD',
      billingPeriod: 'MONTHLY',
      metrics: [{ metricName: 'tool_calls', pricingModel: 'OUTCOME_BASED', rate: '0.01', outcomeWeights: { ERROR: 0 }, toolMultipliers: { search: '3' } }],
    });
    assert.equal(plan.status, 200, JSON.stringify(plan.body));
    const offering = await api.post('/api/v1/offerings', {
      productId: env.productId,
      name: 'Tools',
      currency: 'USD',
      billingPeriod: 'MONTHLY',
      ratePlanIds: [plan.body.id],
    });
    assert.equal(offering.status, 200, JSON.stringify(offering.body));
    const customer = await api.post('/api/v1/customers', { name: 'Toolsmith', externalId: 'toolsmith' });
    const send = async (minute: number, quantity: number, metadata: unknown) => {
      const res = await api.post('/v1/ingest', {
        customerId: 'toolsmith',
        metricName: 'tool_calls',
        quantity,
        occurredAt: new Date(hour + minute * MINUTE).toISOString(),
        metadata,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };
    // Before the subscription, in the hour it starts in: summed into that hour's search share, and
    // taken out again by the raw edge, which must read call.tool as ingestion did.
    await send(10, 100, { call: { tool: 'search' } });
    const sub = await api.post('/api/v1/subscriptions', { customerId: customer.body.id, offeringId: offering.body.id });
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    t.clock.set(hour + 40 * MINUTE);
    await send(35, 2, { call: { tool: 'search' }, result: { status: 'SUCCESS' } }); // 2 x 3
    await send(36, 1, { call: { tool: 'fetch' } }); // 1
    await send(37, 5, { call: { tool: 'search' }, result: { status: 'ERROR' } }); // weight 0
    await send(38, 4, { tool: 'search', executionStatus: 'ERROR' }); // not at this metric's paths: 4 x 1

    const inv = (await api.get(`/api/v1/subscriptions/${sub.body.id}/upcoming-invoice`)).body;
    const line = inv.lines.find((l: { metricName: string | null }) => l.metricName === 'tool_calls');
    // Units after multipliers: 6 + 1 + 15 + 4 = 26; charged after weights: 6 + 1 + 0 + 4 = 11, x 0.01.
    assert.deepEqual([line.quantity, line.amount], ['26', '0.11'], JSON.stringify(line));
  });
});
