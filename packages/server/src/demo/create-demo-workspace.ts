import type { Deps } from '../deps.js';
import { inTransaction } from '../db/transaction.js';
import { environments, type Environment } from '../lib/crypto.js';
import type { Actor, AuditSource, OperationContext } from '../lib/operation-context.js';
import { createApiKey } from '../modules/api-keys/create-api-key.js';
import { createCustomer } from '../modules/customers/create-customer.js';
import { createMetric } from '../modules/metrics/create-metric.js';
import { createProduct } from '../modules/products/create-product.js';
import { createStorefrontKey } from '../modules/storefront-keys/create-storefront-key.js';
import { createDemoCatalog, DEMO_CATALOG_METRICS } from './create-demo-catalog.js';
import { pricingPagePath } from '../modules/catalog/storefront.js';
import { createSubscription } from '../modules/subscriptions/create-subscription.js';
import { subscriptionBilling } from '../modules/billing/open-subscription.js';
import { createWorkspace } from '../modules/tenancy/create-workspace.js';
import { createDemoSources, type DemoSourceKey, type DemoWebhookSource } from './create-demo-sources.js';

/**
 * The shape `tollgate demo --json` prints. Checks outside the test suite depend on it: later
 * issues may add fields, never remove or rename one.
 */
export interface DemoEnvironment {
  secretKey: string;
  productKey: string;
  productKeyId: string;
  customerId: string;
  subscriptionId: string;
  productId: string;
  metricNames: string[];
  storefrontKey: string;
  /** The published demo storefront (four offerings, Pro monthly and annually, all eight pricing models). */
  storefrontId: string;
  /** The hosted pricing page of that storefront: a URL path on this server. */
  pricingPagePath: string;
  /** The offering the demo customer subscribes to (Pro). */
  offeringId: string;
  /** The demo customer's externalId: what a webhook's tenant_id names. */
  customerExternalId: string;
  /** One webhook source per built-in provider, with its secret, so a signed request can be sent at once. */
  webhookSources: Record<DemoSourceKey, DemoWebhookSource>;
}

export interface DemoWorkspace {
  workspaceId: string;
  environments: Record<Environment, DemoEnvironment>;
}

export const DEMO_METRICS = Object.keys(DEMO_CATALOG_METRICS) as Array<keyof typeof DEMO_CATALOG_METRICS>;

/**
 * A workspace with, per environment: one API product, a published storefront of four offerings,
 * one customer subscribed to the Pro offering, every kind of key, and one webhook source per
 * built-in provider.
 */
export async function createDemoWorkspace(
  deps: Deps,
  opts: { actor: Actor; source: AuditSource; correlationId: string; name?: string },
): Promise<DemoWorkspace> {
  return inTransaction(deps.db, async (trx) => {
    const tx = { ...deps, db: trx };
    const created = await createWorkspace(tx, { ...opts, name: opts.name ?? 'Demo workspace' });
    const out = { workspaceId: created.workspace.id, environments: {} } as DemoWorkspace;
    for (const environment of environments) {
      const ctx: OperationContext = {
        workspaceId: created.workspace.id,
        environment,
        actor: opts.actor,
        correlationId: opts.correlationId,
        source: opts.source,
      };
      const product = await createProduct(tx, ctx, { name: 'Demo Search API', kind: 'STANDARD_API', description: 'A metered API to try Tollgate with.' });
      for (const name of DEMO_METRICS) await createMetric(tx, ctx, { name, ...DEMO_CATALOG_METRICS[name] });
      const catalog = await createDemoCatalog(tx, ctx, product.id);
      const customer = await createCustomer(tx, ctx, { externalId: 'acme', name: 'Acme Corp', email: 'billing@acme.example' });
      const subscription = await createSubscription(tx, ctx, { customerId: customer.id, offeringId: catalog.offerings.pro.id }, subscriptionBilling);
      const productKey = await createApiKey(tx, ctx, { kind: 'PRODUCT', name: 'Acme production key', subscriptionId: subscription.id }, null);
      const storefrontKey = await createStorefrontKey(tx, ctx, { name: 'Demo website', storefrontId: catalog.storefront.id });
      const webhookSources = await createDemoSources(tx, ctx);
      out.environments[environment] = {
        secretKey: created.keys[environment].secretKey,
        productKey: productKey.fullToken,
        productKeyId: productKey.key.id,
        customerId: customer.id,
        subscriptionId: subscription.id,
        productId: product.id,
        metricNames: [...DEMO_METRICS],
        storefrontKey: storefrontKey.fullToken,
        storefrontId: catalog.storefront.id,
        pricingPagePath: pricingPagePath(catalog.storefront.id),
        offeringId: catalog.offerings.pro.id,
        customerExternalId: customer.externalId ?? 'acme',
        webhookSources,
      };
    }
    return out;
  });
}
