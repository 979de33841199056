import { ApiKeySchema } from './modules/api-keys/api-key.js';
import { CreditNoteSchema } from './modules/billing/credit-note.js';
import { InvoiceSchema } from './modules/billing/invoice.js';
import { CreditGrantSchema } from './modules/credits/credit-grant.js';
import { PaymentSchema } from './modules/payments/payment.js';
import { catalogTypes, eventCatalog, type ResourceKind } from './modules/outbound-webhooks/event-catalog.js';
import { inlineResourceSchemas, webhookOperation } from './modules/outbound-webhooks/webhook-docs.js';
import { SubscriptionSchema } from './modules/subscriptions/subscription.js';

/**
 * The OpenAPI 3.1 `webhooks` section: one `post` per outbound event type (modules/outbound-webhooks
 * event catalog), with the Standard Webhooks headers, the payload's schema and a full example.
 * `data.object` is the resource exactly as its GET returns it, so it refers to the same schema as
 * that route's answer, given once under `components.schemas`; the two resources no route returns
 * are written out inline. Here rather than in the module: the outbound-webhooks module may not
 * import the modules that own these schemas. @fastify/swagger copies both as they are.
 */
const componentOf = {
  subscription: ['Subscription', SubscriptionSchema],
  invoice: ['Invoice', InvoiceSchema],
  credit_note: ['CreditNote', CreditNoteSchema],
  payment: ['Payment', PaymentSchema],
  credit_grant: ['CreditGrant', CreditGrantSchema],
  api_key: ['ApiKey', ApiKeySchema],
} as const satisfies Partial<Record<ResourceKind, readonly [string, object]>>;

const resourceSchema = (kind: ResourceKind): Record<string, unknown> =>
  kind in componentOf
    ? { $ref: `#/components/schemas/${componentOf[kind as keyof typeof componentOf][0]}` }
    : inlineResourceSchemas[kind as keyof typeof inlineResourceSchemas];

export interface OutboundWebhookDocs {
  /** The document's `webhooks`: one entry per catalog type, keyed by the type's name. */
  webhooks: Record<string, Record<string, unknown>>;
  /** The resources' schemas the entries refer to, for `components.schemas`. */
  schemas: Record<string, object>;
}

export function outboundWebhookDocs(): OutboundWebhookDocs {
  return {
    webhooks: Object.fromEntries(catalogTypes.map((type) => [type, webhookOperation(type, resourceSchema(eventCatalog[type].resource))])),
    schemas: Object.fromEntries(Object.values(componentOf).map(([name, schema]) => [name, schema])),
  };
}
