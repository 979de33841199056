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
