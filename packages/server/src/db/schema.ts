import type { WorkspaceTable } from '../modules/tenancy/workspace.table.js';
import type { CustomerTable } from '../modules/customers/customer.table.js';
import type { ProductTable } from '../modules/products/product.table.js';
import type { MetricTable } from '../modules/metrics/metric.table.js';
import type { SubscriptionTable } from '../modules/subscriptions/subscription.table.js';
import type { ApiKeyTable } from '../modules/api-keys/api-key.table.js';
import type { AccessTokenTable, ClientCredentialTable } from '../modules/client-credentials/client-credential.table.js';
import type { StorefrontKeyTable } from '../modules/storefront-keys/storefront-key.table.js';
import type { AuditEventTable } from '../modules/audit/audit-event.table.js';
import type { IdempotencyKeyTable } from '../modules/idempotency/idempotency-key.table.js';
import type { UsageAggregateTable, UsageEventTable } from '../modules/usage/usage.table.js';
import type { RatePlanTable } from '../modules/catalog/rate-plan.table.js';
import type { OfferingTable } from '../modules/catalog/offering.table.js';
import type { StorefrontTable } from '../modules/catalog/storefront.table.js';
import type { WebhookEventIdTable, WebhookSourceTable } from '../modules/plugs/webhook-source.table.js';
import type { WebhookLogTable } from '../modules/plugs/webhook-log.table.js';
import type { AuditSearchPresetTable } from '../modules/audit/audit-search-preset.table.js';

/** Every table, camelCase (the CamelCasePlugin maps to snake_case columns). */
export interface Database {
  workspaces: WorkspaceTable;
  customers: CustomerTable;
  products: ProductTable;
  metrics: MetricTable;
  subscriptions: SubscriptionTable;
  apiKeys: ApiKeyTable;
  clientCredentials: ClientCredentialTable;
  accessTokens: AccessTokenTable;
  storefrontKeys: StorefrontKeyTable;
  auditEvents: AuditEventTable;
  idempotencyKeys: IdempotencyKeyTable;
  usageEvents: UsageEventTable;
  usageAggregates: UsageAggregateTable;
  ratePlans: RatePlanTable;
  offerings: OfferingTable;
  storefronts: StorefrontTable;
  webhookSources: WebhookSourceTable;
  webhookEventIds: WebhookEventIdTable;
  webhookLog: WebhookLogTable;
  auditSearchPresets: AuditSearchPresetTable;
}
