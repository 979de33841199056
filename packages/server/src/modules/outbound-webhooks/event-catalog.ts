/**
 * The outbound event catalog: every type a seller can subscribe to, with its category (what
 * `category.*` filters match), the resource its `data.object` holds, and an example. Pure.
 *
 * `webhook.test` is sent by the test route to one endpoint whatever its filters; nobody
 * subscribes to it.
 */
export type ResourceKind =
  'subscription' | 'invoice' | 'credit_note' | 'payment' | 'credit_grant' | 'credit_balance_alert' | 'usage_limit_alert' | 'api_key' | 'webhook_test';

export interface CatalogEntry {
  category: string;
  resource: ResourceKind;
  description: string;
}

const sub = (description: string): CatalogEntry => ({ category: 'subscription', resource: 'subscription', description });
const inv = (description: string): CatalogEntry => ({ category: 'invoice', resource: 'invoice', description });
const key = (description: string): CatalogEntry => ({ category: 'api_key', resource: 'api_key', description });

export const eventCatalog = {
  'subscription.created': sub('A subscription was created.'),
  'subscription.upgraded': sub('A plan change to a dearer offering took effect (at once, or at the period end when it was scheduled).'),
  'subscription.downgraded': sub('A plan change to a cheaper offering took effect.'),
  'subscription.plan_changed': sub('A plan change at the same price took effect (neither an upgrade nor a downgrade).'),
  'subscription.change_scheduled': sub('A plan change or a cancellation was scheduled for the period end.'),
  'subscription.change_withdrawn': sub('A scheduled change or cancellation was withdrawn.'),
  'subscription.cancelled': sub('A subscription was cancelled (at once, or at its period end); its keys are revoked.'),
  'subscription.renewed': sub('A subscription entered a new billing period.'),
  'subscription.past_due': sub(
    'An automatic payment failed: the subscription is PAST_DUE, keeps serving until pastDueAccessUntil (the grace period), and its invoice is retried on the workspace’s schedule.',
  ),
  'subscription.recovered': sub('A past-due subscription’s failed invoices were settled (paid, or marked uncollectible): it is ACTIVE again.'),
  'invoice.created': inv('A draft invoice was issued.'),
  'invoice.finalized': inv('An invoice was finalized: numbered, and never changed again.'),
  'invoice.paid': inv('An invoice was paid: by the payment provider, by recorded payments, or marked paid by an operator.'),
  'invoice.voided': inv('An invoice was voided.'),
  'invoice.marked_uncollectible': inv('An invoice was marked uncollectible (by an operator, or by dunning after the last retry).'),
  'invoice.payment_failed': inv('A payment of an invoice failed: lastPaymentError says why, nextPaymentAttempt when it is tried again (null: no retry left).'),
  'invoice.payment_action_required': inv(
    'A payment of an invoice needs the buyer (3-D Secure): paymentActionUrl is where they complete it, when the provider gave one.',
  ),
  'credit_note.created': { category: 'credit_note', resource: 'credit_note', description: 'A credit note was issued against an invoice.' },
  'payment.refunded': {
    category: 'payment',
    resource: 'payment',
    description:
      'A payment’s amountRefunded grew: a credit note’s refund through Stripe (once Stripe answered) or recorded out of band, or a refund Stripe reported (charge.refunded, made in its dashboard too). previousAttributes.amountRefunded is what it showed before.',
  },
  'credits.granted': {
    category: 'credits',
    resource: 'credit_grant',
    description:
      'Prepaid credits were granted to a customer: by an operator (POST /api/v1/credit_grants), bought (status pending until its invoice is paid; then credits.topped_up), or by an offering’s recurring credits or rollover.',
  },
  'credits.voided': {
    category: 'credits',
    resource: 'credit_grant',
    description: 'What was left of a credit grant was voided; what was drawn stays drawn. previousAttributes.remaining is what it had left.',
  },
  'credits.expired': {
    category: 'credits',
    resource: 'credit_grant',
    description:
      'A credit grant expired with something left: written once no invoice can still draw from it for usage before its expiresAt (the periods that began before it are closed and their invoices finalized). previousAttributes.remaining is what it had left.',
  },
  'credits.topped_up': {
    category: 'credits',
    resource: 'credit_grant',
    description:
      'Bought credits were paid for and are now active: a purchase (POST /api/v1/credit_grants with source purchased) or an automatic top-up, once its invoice was paid. previousAttributes.status is pending.',
  },
  'credits.balance_low': {
    category: 'credits',
    resource: 'credit_balance_alert',
    description:
      'A customer’s live credit balance fell below the lowBalanceThreshold of its credit settings: once per crossing (again only after it was back at or above it).',
  },
  'credits.exhausted': {
    category: 'credits',
    resource: 'credit_balance_alert',
    description:
      'A customer’s live credit balance reached zero (usage so far used up every credit that can pay it; a PREPAID offering with overage BLOCK now refuses): once per crossing.',
  },
  'usage.limit_alert': {
    category: 'usage',
    resource: 'usage_limit_alert',
    description: "A customer's usage crossed an ALERT limit of its subscription: once per limit and billing period.",
  },
  'api_key.rotated': key('A key was rotated: the old one works until its grace ends.'),
  'api_key.rolled': key('A key was rolled: the old one stopped at once.'),
  'api_key.revoked': key('A key was revoked (by an operator, or because its subscription was cancelled).'),
  'api_key.grace_used': key('A rotated key was still used during its grace period: once per key. Move its caller to the new key.'),
  'webhook.test': { category: 'webhook', resource: 'webhook_test', description: 'Sent by POST /api/v1/webhook-endpoints/{id}/test, to that endpoint only.' },
} as const satisfies Record<string, CatalogEntry>;

export type CatalogType = keyof typeof eventCatalog;
export const catalogTypes = Object.keys(eventCatalog) as CatalogType[];
/** What an endpoint may subscribe to: every type but webhook.test. */
export const subscribableTypes = catalogTypes.filter((t) => t !== 'webhook.test');
export const subscribableCategories = [...new Set(subscribableTypes.map((t) => eventCatalog[t].category))];

export const isCatalogType = (t: string): t is CatalogType => Object.hasOwn(eventCatalog, t);

export interface FilterError {
  field: string;
  message: string;
}

/**
 * An endpoint's `eventTypes`: `*`, exact subscribable names, or `category.*`. Duplicates are
 * dropped and `*` absorbs everything else. Every problem names its index.
 */
export function checkEventTypeFilters(list: readonly string[], field: string): { ok: true; value: string[] } | { ok: false; errors: FilterError[] } {
  const errors: FilterError[] = [];
  if (list.length === 0) errors.push({ field, message: 'must name at least one event type, "category.*" or "*".' });
  list.forEach((f, i) => {
    if (f === '*' || (subscribableTypes as string[]).includes(f)) return;
    if (f.endsWith('.*') && subscribableCategories.includes(f.slice(0, -2))) return;
    errors.push({
      field: `${field}[${i}]`,
      message:
        f === 'webhook.test'
          ? 'webhook.test is sent by the test route whatever the filters; it cannot be subscribed to.'
          : `'${f}' is no event type: give one of GET /api/v1/webhook-event-types, a category followed by .* (${subscribableCategories.map((c) => `${c}.*`).join(', ')}), or *.`,
    });
  });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: list.includes('*') ? ['*'] : [...new Set(list)] };
}

/** Whether an endpoint with these filters gets this type. webhook.test matches none (it goes to one endpoint). */
export function matchesEventType(filters: readonly string[], type: CatalogType): boolean {
  if (type === 'webhook.test') return false;
  const category = eventCatalog[type].category;
  return filters.some((f) => f === '*' || f === type || f === `${category}.*`);
}

const EXAMPLE_AT = '2026-11-23T12:00:00.000Z';
/**
 * Abridged resources, every field a real one of its presentation with a value of its type
 * (webhook-events.routes.test.ts checks them against the messages real changes write).
 */
const exampleObjects: Record<ResourceKind, Record<string, unknown>> = {
  subscription: {
    id: 'sub_01jd3m5x7c0000000000000000',
    object: 'subscription',
    environment: 'test',
    customerId: 'cus_01jd3m5x7c0000000000000000',
    offeringId: 'off_01jd3m5x7c0000000000000000',
    status: 'ACTIVE',
    currentPeriodStart: '2026-11-01T00:00:00.000Z',
    currentPeriodEnd: '2026-12-01T00:00:00.000Z',
  },
  invoice: {
    id: 'inv_01jd3m5x7c0000000000000000',
    object: 'invoice',
    customerId: 'cus_01jd3m5x7c0000000000000000',
    subscriptionId: 'sub_01jd3m5x7c0000000000000000',
    billingReason: 'subscription_cycle',
    status: 'finalized',
    number: 'INV-2026-000123',
    currency: 'USD',
    periodStart: '2026-10-01T00:00:00.000Z',
    periodEnd: '2026-11-01T00:00:00.000Z',
    total: '49.00',
    amountRemaining: '49.00',
  },
  credit_note: {
    id: 'cn_01jd3m5x7c0000000000000000',
    object: 'credit_note',
    invoiceId: 'inv_01jd3m5x7c0000000000000000',
    customerId: 'cus_01jd3m5x7c0000000000000000',
    subscriptionId: 'sub_01jd3m5x7c0000000000000000',
    number: 'CN-2026-000007',
    status: 'issued',
    reason: 'proration',
    currency: 'USD',
    total: '12.50',
  },
  payment: {
    id: 'pay_01jd3m5x7c0000000000000000',
    object: 'payment',
    invoiceId: 'inv_01jd3m5x7c0000000000000000',
    provider: 'stripe',
    status: 'succeeded',
    amount: '49.00',
    amountRefunded: '12.50',
    currency: 'USD',
  },
  credit_grant: {
    id: 'cgr_01jd3m5x7c0000000000000000',
    object: 'credit_grant',
    customerId: 'cus_01jd3m5x7c0000000000000000',
    currency: 'USD',
    amount: '50.00',
    remaining: '50.00',
    priority: 10,
    source: 'promotional',
    status: 'active',
  },
  credit_balance_alert: {
    object: 'credit_balance_alert',
    customerId: 'cus_01jd3m5x7c0000000000000000',
    currency: 'USD',
    balance: '4.20',
    threshold: '5.00',
    subscriptionId: 'sub_01jd3m5x7c0000000000000000',
  },
  usage_limit_alert: {
    object: 'usage_limit_alert',
    subscriptionId: 'sub_01jd3m5x7c0000000000000000',
    customerId: 'cus_01jd3m5x7c0000000000000000',
    metricName: 'api_calls',
    limit: 10000,
    usage: '10001',
    periodStart: '2026-11-01T00:00:00.000Z',
    periodEnd: '2026-12-01T00:00:00.000Z',
    enforcement: 'ALERT',
  },
  api_key: {
    id: 'key_01jd3m5x7c0000000000000000',
    object: 'api_key',
    environment: 'test',
    kind: 'PRODUCT',
    name: 'customer key',
    hint: 'sk_test_…9f2c',
    subscriptionId: 'sub_01jd3m5x7c0000000000000000',
    status: 'ROTATED',
  },
  webhook_test: { object: 'webhook_test', message: 'A test event from Tollgate.' },
};

/** An abridged example of a type's body (docs/webhooks.md and the OpenAPI document show the full resources). */
export function exampleOf(type: CatalogType): { type: CatalogType; timestamp: string; data: { object: Record<string, unknown> } } {
  return { type, timestamp: EXAMPLE_AT, data: { object: exampleObjects[eventCatalog[type].resource] } };
}
