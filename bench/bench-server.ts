// A real Tollgate server for benchmarks: the embedded SQLite default (or DATABASE_URL), a demo
// workspace whose rate limit is raised out of the way, 100 extra customers, and one bare route as
// the ceiling. Prints one JSON line with its URL, keys and ids, then serves until killed.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../packages/server/src/app.js';
import { bootstrap } from '../packages/server/src/bootstrap.js';
import { loadConfig } from '../packages/server/src/lib/config.js';
import { createDemoWorkspace } from '../packages/server/src/demo/create-demo-workspace.js';
import { setWorkspaceRateLimit } from '../packages/server/src/modules/tenancy/workspace.repository.js';
import { createCustomer } from '../packages/server/src/modules/customers/create-customer.js';
import { updateSubscription } from '../packages/server/src/modules/subscriptions/update-subscription.js';
import { createSubscription } from '../packages/server/src/modules/subscriptions/create-subscription.js';
import { subscriptionBilling } from '../packages/server/src/modules/billing/open-subscription.js';
import { createOffering } from '../packages/server/src/modules/catalog/create-offering.js';
import { findOffering } from '../packages/server/src/modules/catalog/offering.repository.js';
import { createCreditGrant } from '../packages/server/src/modules/credits/grant-credits.js';

const dataDir = process.env.DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'tollgate-bench-'));
const config = {
  ...loadConfig({ ...process.env, TOLLGATE_PROFILE: 'test', DATA_DIR: dataDir }),
  logLevel: 'warn',
  seedDemo: false,
  port: 0,
};
const { composition } = await bootstrap(config);
const { deps } = composition;
// BENCH_RESUME=1 with the DATA_DIR (and DATABASE_URL) of an earlier start: a restart on the same
// data (bench/outbound-webhooks.ts restarts it with another OUTBOUND_WEBHOOK_SENDER): nothing is
// seeded again, and the info line is the one that start wrote.
const infoFile = path.join(dataDir, 'bench-info.json');
const resume = process.env.BENCH_RESUME === '1';
const seeded = resume ? (JSON.parse(readFileSync(infoFile, 'utf8')) as Record<string, unknown>) : await seed();

async function seed(): Promise<Record<string, unknown>> {
  const demo = await createDemoWorkspace(deps, { actor: { type: 'SYSTEM', id: 'bench' }, source: 'system', correlationId: 'bench' });
  await setWorkspaceRateLimit(deps.db, demo.workspaceId, 10_000_000, Date.now());
  const test = demo.environments.test;
  const ctx = {
    workspaceId: demo.workspaceId,
    environment: 'test' as const,
    actor: { type: 'SYSTEM' as const, id: 'bench' },
    correlationId: 'bench',
    source: 'system' as const,
  };
  const customerIds: string[] = [];
  for (let i = 0; i < 100; i++) customerIds.push((await createCustomer(deps, ctx, { externalId: `bench-${i}` })).id);
  // The demo subscription (on the Pro offering: three units rated from the catalog) gets a limit
  // and a budget, so checks do the full work: catalog quota, usage limit and rated spend.
  await updateSubscription(deps, ctx, test.subscriptionId, {
    usageLimits: [{ metricName: 'api_calls', limit: 1_000_000_000, enforcement: 'BLOCK' }],
    spendBudget: { amount: '1000000', enforcement: 'BLOCK' },
  });
  const billingModes = process.env.BENCH_PREPAID === '1' ? await seedBillingModes(ctx, test.offeringId) : null;
  const info = {
    ...(billingModes ?? {}),
    // The demo workspace (ws_…): the X-Tenant-Id of the audit stream (bench/audit-stream.ts).
    workspaceId: demo.workspaceId,
    dataDir,
    databaseFile: deps.dialect === 'sqlite' ? path.join(dataDir, 'tollgate.db') : null,
    secretKey: test.secretKey,
    productKey: test.productKey,
    customerId: test.customerId,
    productId: test.productId,
    customerIds,
    // One webhook source per built-in provider (id, URL path, signing secret), for bench/webhooks.ts.
    webhookSources: Object.fromEntries(Object.entries(test.webhookSources).map(([k, v]) => [k, { id: v.id, url: v.url, secret: v.secret }])),
  };
  writeFileSync(infoFile, JSON.stringify(info));
  return info;
}

/**
 * BENCH_PREPAID=1 (bench/entitlements.ts): 100 customers on a POSTPAID copy of the demo's Pro
 * offering and 100 on a PREPAID one (overage BLOCK), each of those holding 10 grants (of different
 * priorities and expiries, none effective later or expired, so all count): the checks of the two
 * sets compare what the live credit balance adds.
 */
async function seedBillingModes(ctx: Parameters<typeof createCustomer>[1], proId: string) {
  const pro = (await findOffering(deps.db, ctx, proId))!;
  const copy = { productId: pro.productId, currency: pro.currency, billingPeriod: pro.billingPeriod, entryPrice: pro.entryPrice, ratePlanIds: pro.ratePlanIds };
  const postpaid = await createOffering(deps, ctx, { ...copy, name: 'Bench postpaid' });
  const prepaid = await createOffering(deps, ctx, { ...copy, name: 'Bench prepaid', billingMode: 'PREPAID', overage: 'BLOCK' });
  const subscribers = async (offeringId: string, prefix: string, grants: number) => {
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) {
      const customer = await createCustomer(deps, ctx, { externalId: `${prefix}-${i}` });
      await createSubscription(deps, ctx, { customerId: customer.id, offeringId }, subscriptionBilling);
      for (let g = 0; g < grants; g++) {
        await createCreditGrant(
          deps,
          ctx,
          {
            customerId: customer.id,
            amount: '1000000',
            currency: pro.currency,
            priority: g % 3,
            ...(g % 2 === 0 ? { expiresAt: new Date(Date.now() + (g + 1) * 86_400_000 * 365).toISOString() } : {}),
          },
          null,
        );
      }
      ids.push(customer.id);
    }
    return ids;
  };
  return { postpaidCustomerIds: await subscribers(postpaid.id, 'postpaid', 0), prepaidCustomerIds: await subscribers(prepaid.id, 'prepaid', 10) };
}

const app = await buildApp(composition);
app.get('/__bench/bare', { config: { rateLimited: false }, schema: { hide: true } }, async () => ({ ok: true }));
app.post('/__bench/bare', { config: { rateLimited: false }, schema: { hide: true } }, async () => ({ ok: true }));
// The same bare answer behind authentication and the rate limit: what every API route pays.
app.get('/__bench/authed', { config: { auth: { kind: 'workspace', scope: 'entitlements:read' } }, schema: { hide: true } }, async () => ({ ok: true }));
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url, ...seeded })}\n`);
// Exit normally on a signal, so `--cpu-prof` can write its profile. The ingest benchmark reads the
// database file after the server stops, so a temporary directory is removed on its own exit, not here.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
