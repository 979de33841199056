/**
 * The real Tollgate server built from this repository, listening on a free port of 127.0.0.1,
 * with a workspace, metrics and a subscribed customer: what the SDK's tests talk to.
 */
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from '../../../server/test/helpers/test-app.js';
import type { TenantHandle } from '../../../server/test/helpers/seed.js';
import { createMetric } from '../../../server/src/modules/metrics/create-metric.js';

export interface RealServer {
  t: TestApp;
  baseUrl: string;
  ws: TenantHandle;
  /** The test environment's secret key (every scope). */
  key: string;
  /** The server's frozen clock, for the SDK's default occurredAt. */
  now: () => number;
  /** A new customer subscribed to a new product, with optional usage limits. */
  subscribed(usageLimits?: Array<{ metricName: string; limit: number; enforcement: 'BLOCK' | 'ALERT' }>): Promise<{
    customerId: string;
    productId: string;
    subscriptionId: string;
  }>;
  /** A new customer subscribed to a new PREPAID offering (api_calls at 0.01 each) with this overage rule. */
  prepaid(overage: 'BILL' | 'BLOCK'): Promise<{ customerId: string; productId: string; subscriptionId: string }>;
  /** Events stored for a customer (counted in the database, not through the API). */
  storedEvents(customerId: string): Promise<number>;
  close(): Promise<void>;
}

export async function startRealServer(): Promise<RealServer> {
  const t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  const ws = await t.seed.workspace();
  for (const name of ['api_calls', 'tokens']) await createMetric(t.deps, ws.test.ctx, { name });
  const api = t.seed.client(ws.test.secretKey);
  let prepaidCount = 0;
  return {
    t,
    baseUrl: `http://127.0.0.1:${port}`,
    ws,
    key: ws.test.secretKey,
    now: () => t.clock.now(),
    async subscribed(usageLimits) {
      const { customer, product, subscription } = await t.seed.subscription(ws.test);
      if (usageLimits) {
        const res = await api.patch(`/api/v1/subscriptions/${subscription.id}`, { usageLimits });
        if (res.status !== 200) throw new Error(JSON.stringify(res.body));
      }
      return { customerId: customer.id, productId: product.id, subscriptionId: subscription.id };
    },
    async prepaid(overage) {
      const post = async (path: string, body: unknown) => {
        const res = await api.post(path, body);
        if (res.status !== 200) throw new Error(`${path}: ${JSON.stringify(res.body)}`);
        return res.body as { id: string };
      };
      const product = await post('/api/v1/products', { name: `Prepaid ${++prepaidCount}`, kind: 'STANDARD_API' });
      const plan = await post('/api/v1/rate-plans', {
        name: 'Calls',
        currency: 'USD',
        billingPeriod: 'MONTHLY',
        metrics: [{ metricName: 'api_calls', pricingModel: 'PER_UNIT', rate: '0.01' }],
      });
      const offering = await post('/api/v1/offerings', {
        productId: product.id,
        name: 'Prepaid',
        currency: 'USD',
        billingPeriod: 'MONTHLY',
        billingMode: 'PREPAID',
        overage,
        ratePlanIds: [plan.id],
      });
      const customer = await post('/api/v1/customers', { name: 'Prepaid buyer' });
      const sub = await post('/api/v1/subscriptions', { customerId: customer.id, offeringId: offering.id });
      return { customerId: customer.id, productId: product.id, subscriptionId: sub.id };
    },
    async storedEvents(customerId) {
      const row = await t.deps.db
        .selectFrom('usageEvents')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('customerId', '=', customerId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    close: () => t.close(),
  };
}
