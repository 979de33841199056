import type { WorkspaceTable } from './tables/workspace.table.js';
import type { CustomerTable } from './tables/customer.table.js';
import type { ProductTable } from './tables/product.table.js';
import type { MetricTable } from './tables/metric.table.js';
import type { SubscriptionTable } from './tables/subscription.table.js';
import type { ApiKeyTable } from './tables/api-key.table.js';
import type { AccessTokenTable, ClientCredentialTable } from './tables/client-credential.table.js';
import type { StorefrontKeyTable } from './tables/storefront-key.table.js';
import type { AuditEventTable } from './tables/audit-event.table.js';
import type { IdempotencyKeyTable } from './tables/idempotency-key.table.js';
import type { UsageAggregateTable, UsageEventClaimTable, UsageEventTable, UsageHourlyTable } from './tables/usage.table.js';
import type { RatePlanTable } from './tables/rate-plan.table.js';
import type { OfferingTable } from './tables/offering.table.js';
import type { StorefrontTable } from './tables/storefront.table.js';
import type { WebhookEventIdTable, WebhookSourceTable } from './tables/webhook-source.table.js';
import type { WebhookLogTable } from './tables/webhook-log.table.js';
import type { AuditSearchPresetTable } from './tables/audit-search-preset.table.js';
import type { BillingSettingsTable, CreditNoteTable, DocumentSequenceTable, InvoiceTable, PriceVersionTable } from './tables/billing.table.js';
import type { TestClockTable } from './tables/test-clock.table.js';
import type { WidgetSessionTable } from './tables/widget-session.table.js';
import type { OperatorInvitationTable, OperatorSessionTable, OperatorUserTable } from './tables/operator.table.js';
import type { HubSessionTable } from './tables/hub-session.table.js';
import type { RetentionOfferAcceptanceTable } from './tables/retention-offer-acceptance.table.js';
import type { PaymentProviderTable } from './tables/payment-provider.table.js';
import type { PaymentTable } from './tables/payment.table.js';
import type { ProviderCustomerTable } from './tables/provider-customer.table.js';
import type { CustomerBalanceTable, RefundTable } from './tables/refund.table.js';
import type { CreditBalanceTable, CreditGrantTable, CreditLedgerEntryTable, CreditSettingsTable } from './tables/credit.table.js';
import type { PaymentProviderEventTable } from './tables/payment-provider-event.table.js';
import type {
  WebhookAttemptTable,
  WebhookDeliveryTable,
  WebhookEndpointTable,
  WebhookLaneTable,
  WebhookMessageTable,
} from './tables/outbound-webhook.table.js';

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
  usageHourly: UsageHourlyTable;
  usageEventClaims: UsageEventClaimTable;
  ratePlans: RatePlanTable;
  offerings: OfferingTable;
  storefronts: StorefrontTable;
  webhookSources: WebhookSourceTable;
  webhookEventIds: WebhookEventIdTable;
  webhookLog: WebhookLogTable;
  auditSearchPresets: AuditSearchPresetTable;
  invoices: InvoiceTable;
  creditNotes: CreditNoteTable;
  documentSequences: DocumentSequenceTable;
  billingSettings: BillingSettingsTable;
  priceVersions: PriceVersionTable;
  testClocks: TestClockTable;
  widgetSessions: WidgetSessionTable;
  operatorUsers: OperatorUserTable;
  operatorSessions: OperatorSessionTable;
  operatorInvitations: OperatorInvitationTable;
  retentionOfferAcceptances: RetentionOfferAcceptanceTable;
  webhookEndpoints: WebhookEndpointTable;
  webhookMessages: WebhookMessageTable;
  webhookDeliveries: WebhookDeliveryTable;
  webhookAttempts: WebhookAttemptTable;
  webhookLanes: WebhookLaneTable;
  hubSessions: HubSessionTable;
  paymentProviders: PaymentProviderTable;
  payments: PaymentTable;
  providerCustomers: ProviderCustomerTable;
  creditGrants: CreditGrantTable;
  creditLedgerEntries: CreditLedgerEntryTable;
  creditBalances: CreditBalanceTable;
  creditSettings: CreditSettingsTable;
  paymentProviderEvents: PaymentProviderEventTable;
  refunds: RefundTable;
  customerBalances: CustomerBalanceTable;
}
