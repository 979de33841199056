import { eventCatalog, exampleOf, type CatalogType, type ResourceKind } from './event-catalog.js';
import { detailsExample, detailsSchema } from './event-details.js';
import { MAX_BODY_BYTES } from './webhook-payload.js';
import { MAX_ATTEMPTS, MAX_RETRY_AFTER_SECONDS, JITTER, RETRY_DELAYS_MS } from './retry-schedule.js';

/**
 * What the OpenAPI document's `webhooks` section says about each event type: the Standard
 * Webhooks headers, the body's schema around `data.object`, a full example and what the answer
 * means. Pure data; the resources' own schemas come from the caller (openapi-webhooks.ts), which
 * may import the modules that own them.
 */

type Schema = Record<string, unknown>;

const MAX_ID = 100;
const DateTime = { type: 'string', format: 'date-time', maxLength: 40 } as const;
const Fields = (description: string): Schema => ({
  type: 'object',
  additionalProperties: true,
  maxProperties: 100,
  propertyNames: { maxLength: 100 },
  description,
});

/** Where the API shows each resource: `data.object` is what this GET returns at the event's commit. */
export const resourceGetPath: Record<ResourceKind, string | null> = {
  subscription: 'GET /api/v1/subscriptions/{id}',
  invoice: 'GET /api/v1/invoices/{id}',
  credit_note: 'GET /api/v1/credit_notes/{id}',
  payment: 'GET /api/v1/payments/{id}',
  credit_grant: 'GET /api/v1/credit_grants/{id}',
  api_key: 'GET /api/v1/api-keys/{id}',
  credit_balance_alert: null,
  usage_limit_alert: null,
  webhook_test: null,
};

/** The resources no route returns: their schemas are written out here. */
export const inlineResourceSchemas = {
  credit_balance_alert: {
    type: 'object',
    description: 'A customer’s live credit balance crossed a threshold: what the entitlement check computes (what is left after the period’s usage so far).',
    required: ['object', 'customerId', 'currency', 'balance', 'threshold', 'subscriptionId'],
    properties: {
      object: { const: 'credit_balance_alert' },
      customerId: { type: 'string', maxLength: MAX_ID, description: 'cus_…' },
      currency: { type: 'string', maxLength: 3, description: 'ISO 4217.' },
      balance: {
        type: 'string',
        maxLength: 40,
        pattern: '^-?[0-9]{1,20}(\\.[0-9]{1,4})?$',
        description: 'The live balance then, in the currency’s minor digits; negative by what no credit can pay.',
      },
      threshold: {
        type: ['string', 'null'],
        maxLength: 40,
        description: 'balance_low: the lowBalanceThreshold crossed; exhausted: null (zero).',
      },
      subscriptionId: { type: 'string', maxLength: MAX_ID, description: 'The PREPAID subscription whose check saw it.' },
    },
  },
  usage_limit_alert: {
    type: 'object',
    description: 'An ALERT limit of a subscription crossed: usage went from at most the limit to above it in this billing period.',
    required: ['object', 'subscriptionId', 'customerId', 'metricName', 'limit', 'usage', 'periodStart', 'periodEnd', 'enforcement'],
    properties: {
      object: { const: 'usage_limit_alert' },
      subscriptionId: { type: 'string', maxLength: MAX_ID, description: 'sub_…' },
      customerId: { type: 'string', maxLength: MAX_ID, description: 'cus_…' },
      metricName: { type: 'string', maxLength: 100, description: 'The metric of the limit, as usage events name it.' },
      limit: { type: 'number', minimum: 0, description: 'Units per billing period (the subscription’s usageLimits entry).' },
      usage: {
        type: 'string',
        maxLength: 40,
        pattern: '^-?[0-9]{1,20}(\\.[0-9]{1,12})?$',
        description: 'The period’s usage of the metric once the crossing batch was stored: exact decimal text, as GET /api/v1/usage sums.',
      },
      periodStart: { ...DateTime, description: 'The billing period the limit counts over.' },
      periodEnd: { ...DateTime, description: 'Exclusive.' },
      enforcement: { const: 'ALERT' },
    },
  },
  webhook_test: {
    type: 'object',
    description: 'A test event: it carries no resource.',
    required: ['object', 'message'],
    properties: { object: { const: 'webhook_test' }, message: { type: 'string', maxLength: 200 } },
  },
} as const satisfies Partial<Record<ResourceKind, Schema>>;

const seconds = (ms: number) => {
  const s = ms / 1000;
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${s / 60} min`;
  return `${s / 3600} h`;
};
/** The retry schedule in words, from retry-schedule.ts. */
export const retryScheduleText = `${MAX_ATTEMPTS} attempts, each after the previous failure by ${RETRY_DELAYS_MS.map(seconds).join(', ')} (±${JITTER * 100}%), about ${(RETRY_DELAYS_MS.reduce((a, b) => a + b, 0) / 3_600_000).toFixed(1)} h in all`;

/** The three Standard Webhooks headers of every attempt. */
export const webhookHeaderParameters = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      'The message id (msg_…): the same on every retry and replay of this message, so a receiver that remembers the ids it has handled drops duplicates (delivery is at least once).',
    schema: { type: 'string', maxLength: MAX_ID },
    example: 'msg_01jd3m5x7c0000000000000000',
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description:
      'When this attempt was signed, in Unix seconds (a new one on each attempt). Refuse a message more than 5 minutes from your clock, as the standardwebhooks libraries do: a captured request cannot be replayed later.',
    schema: { type: 'string', pattern: '^[0-9]{1,12}$' },
    example: '1795435200',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,<base64 HMAC-SHA256 of id.timestamp.body>`: the webhook-id, a dot, the webhook-timestamp, a dot and the raw body bytes, keyed with the bytes of the endpoint secret (the base64 after `whsec_`). Several space-separated signatures may appear: during a secret rotation’s grace there is one per secret, the new one first. Accept the message when any of them matches, comparing in constant time. Verify the raw body before parsing it.',
    schema: { type: 'string', maxLength: 200 },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
] as const;

/** What the endpoint's answer does to the delivery. */
export const webhookResponses = {
  '2XX': {
    description:
      'Any 2xx within OUTBOUND_WEBHOOK_TIMEOUT_MS (15 s) acknowledges the message; the body is ignored (its first 1 KB is kept in the delivery log). Answer quickly and do the work afterwards.',
  },
  '410': { description: 'Gone: the endpoint is disabled at once (disabledReason gone) and receives nothing until it is enabled again.' },
  default: {
    description: `Anything else (another status, a redirect, a timeout, a refused connection) is retried on the schedule: ${retryScheduleText}. A Retry-After on 429 or 503 is honoured up to ${MAX_RETRY_AFTER_SECONDS / 3600} h. An endpoint with no success for OUTBOUND_WEBHOOK_DISABLE_AFTER_HOURS (120 h) since its first failure is disabled (disabledReason failing).`,
  },
} as const;

/** `data` past the body limit: only the resource's id and kind, with `thin: true`. */
const thinData = (kind: ResourceKind): Schema => ({
  type: 'object',
  description: `A body over ${MAX_BODY_BYTES / 1024} KiB (an invoice of a thousand lines) carries only the resource's id and object, with thin true: fetch the resource.`,
  required: ['object', 'thin'],
  properties: {
    object: {
      type: 'object',
      required: resourceGetPath[kind] === null ? ['object'] : ['id', 'object'],
      properties: { ...(resourceGetPath[kind] === null ? {} : { id: { type: 'string', maxLength: MAX_ID } }), object: { const: kind } },
      additionalProperties: false,
    },
    thin: { const: true },
  },
});

/** The body's schema for one type, given the schema of its resource (a $ref to the GET's, or inline). */
export function webhookBodySchema(type: CatalogType, resourceSchema: Schema): Schema {
  const kind = eventCatalog[type].resource;
  const get = resourceGetPath[kind];
  const details = detailsSchema(type);
  const object =
    get === null
      ? resourceSchema
      : { ...resourceSchema, description: `The ${kind.replace('_', ' ')} as ${get} returns it at the event's commit (never a secret).` };
  return {
    type: 'object',
    required: ['type', 'timestamp', 'data'],
    properties: {
      type: { const: type },
      timestamp: { ...DateTime, description: 'When the event happened, UTC; the same on every attempt.' },
      data: {
        anyOf: [
          {
            type: 'object',
            required: details ? ['object', 'details'] : ['object'],
            properties: {
              object,
              previousAttributes: Fields('For changes: the fields of data.object that changed, with their values before the change.'),
              ...(details && { details }),
            },
          },
          thinData(kind),
        ],
      },
    },
  };
}

const EXAMPLE_ID = (prefix: string) => `${prefix}_01jd3m5x7c0000000000000000`;
const PERIOD = { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' };
const CREATED = '2026-10-01T09:30:00.000Z';

/** Every field of each resource, as its GET returns it; the catalog's abridged examples go over these. */
const fullResources: Partial<Record<ResourceKind, Record<string, unknown>>> = {
  subscription: {
    id: EXAMPLE_ID('sub'),
    object: 'subscription',
    environment: 'test',
    customerId: EXAMPLE_ID('cus'),
    productId: EXAMPLE_ID('prod'),
    offeringId: EXAMPLE_ID('off'),
    trialEndsAt: null,
    status: 'ACTIVE',
    billingPeriod: 'MONTHLY',
    currentPeriodStart: PERIOD.start,
    currentPeriodEnd: PERIOD.end,
    version: 4,
    startedAt: CREATED,
    cancelledAt: null,
    metadata: {},
    currency: 'USD',
    usageLimits: [{ metricName: 'api_calls', limit: 10000, enforcement: 'ALERT' }],
    spendBudget: null,
    unitPrices: {},
    billingCycleAnchor: '2026-10-01T00:00:00.000Z',
    periodAlignment: 'calendar',
    cancelAtPeriodEnd: false,
    scheduledChange: null,
    testClockId: null,
    priceVersionId: EXAMPLE_ID('pv'),
    priceVersionPinned: false,
    discount: null,
    cancellationDetails: null,
    pastDueSince: null,
    pastDueAccessUntil: null,
    collectionMethod: null,
    pendingUpdate: null,
    createdAt: CREATED,
    updatedAt: '2026-11-23T12:00:00.000Z',
  },
  invoice: {
    id: EXAMPLE_ID('inv'),
    object: 'invoice',
    customerId: EXAMPLE_ID('cus'),
    subscriptionId: EXAMPLE_ID('sub'),
    billingReason: 'subscription_cycle',
    status: 'finalized',
    number: 'INV-2026-000123',
    currency: 'USD',
    periodStart: PERIOD.start,
    periodEnd: PERIOD.end,
    priceVersionId: EXAMPLE_ID('pv'),
    lines: [
      {
        type: 'entry_price',
        description: 'Pro (monthly)',
        ratePlanId: EXAMPLE_ID('plan'),
        metricName: null,
        pricingModel: null,
        quantity: null,
        freeUnits: null,
        billableQuantity: null,
        rate: null,
        amount: '49.00',
        periodStart: PERIOD.start,
        periodEnd: PERIOD.end,
        adjustsInvoiceId: null,
      },
    ],
    subtotal: '49.00',
    total: '49.00',
    creditedTotal: '0.00',
    amountPaid: '0.00',
    amountDue: '49.00',
    amountRemaining: '49.00',
    collectionMethod: 'charge_automatically',
    dueDate: null,
    paymentStatus: 'unpaid',
    hostedInvoiceUrl: `https://api.example.com/pay/${EXAMPLE_ID('ws')}.t.${EXAMPLE_ID('inv')}.mVx0c2Vhb3BsZWFzZXBheQ`,
    attemptCount: 0,
    nextPaymentAttempt: null,
    lastPaymentError: null,
    paymentActionUrl: null,
    testClockId: null,
    finalizeAt: '2026-11-01T01:00:00.000Z',
    finalizedAt: '2026-11-01T01:00:00.000Z',
    paidAt: null,
    voidedAt: null,
    markedUncollectibleAt: null,
    metadata: {},
    createdAt: PERIOD.start,
    updatedAt: '2026-11-01T01:00:00.000Z',
  },
  credit_note: {
    id: EXAMPLE_ID('cn'),
    object: 'credit_note',
    invoiceId: EXAMPLE_ID('inv'),
    customerId: EXAMPLE_ID('cus'),
    subscriptionId: EXAMPLE_ID('sub'),
    number: 'CN-2026-000007',
    status: 'issued',
    reason: 'proration',
    memo: null,
    currency: 'USD',
    lines: [{ description: 'Unused time on Pro', amount: '12.50', invoiceLineIndex: 0 }],
    total: '12.50',
    metadata: {},
    voidedAt: null,
    createdAt: '2026-11-23T12:00:00.000Z',
    updatedAt: '2026-11-23T12:00:00.000Z',
  },
  payment: {
    id: EXAMPLE_ID('pay'),
    object: 'payment',
    invoiceId: EXAMPLE_ID('inv'),
    customerId: EXAMPLE_ID('cus'),
    provider: 'stripe',
    status: 'succeeded',
    amount: '49.00',
    amountRefunded: '12.50',
    currency: 'USD',
    reference: null,
    paidAt: '2026-11-01T01:00:00.000Z',
    attempt: 1,
    trigger: 'automatic',
    providerReference: 'pi_3QExampleTollgate0001',
    failureCode: null,
    failureMessage: null,
    actionUrl: null,
    createdAt: '2026-11-01T01:00:00.000Z',
    updatedAt: '2026-11-23T12:00:00.000Z',
  },
  credit_grant: {
    id: EXAMPLE_ID('cgr'),
    object: 'credit_grant',
    customerId: EXAMPLE_ID('cus'),
    currency: 'USD',
    amount: '50.00',
    remaining: '50.00',
    priority: 10,
    effectiveAt: CREATED,
    expiresAt: '2027-01-01T00:00:00.000Z',
    source: 'promotional',
    status: 'active',
    subscriptionId: null,
    metricNames: null,
    cost: null,
    invoiceId: null,
    metadata: {},
    voidedAt: null,
    createdAt: CREATED,
    updatedAt: CREATED,
  },
  api_key: {
    id: EXAMPLE_ID('key'),
    object: 'api_key',
    environment: 'test',
    kind: 'PRODUCT',
    name: 'acme production',
    hint: 'sk_test_…9f2c',
    scopes: [],
    subscriptionId: EXAMPLE_ID('sub'),
    customerId: EXAMPLE_ID('cus'),
    productId: EXAMPLE_ID('prod'),
    status: 'ACTIVE',
    expiresAt: null,
    replacedById: null,
    createdAt: CREATED,
    revokedAt: null,
  },
};

interface Variation {
  object?: Record<string, unknown>;
  previousAttributes?: Record<string, unknown>;
}

const CHANGED_AT = '2026-11-23T12:00:00.000Z';
const NEW_OFFERING = { offeringId: 'off_01jd3m5y2q0000000000000000', currentPeriodStart: CHANGED_AT, priceVersionId: 'pv_01jd3m5y2q0000000000000000' };
const OLD_OFFERING = { offeringId: EXAMPLE_ID('off'), currentPeriodStart: PERIOD.start, priceVersionId: EXAMPLE_ID('pv') };
const SCHEDULED = { offeringId: 'off_01jd3m5y2q0000000000000001', requestedAt: CHANGED_AT, usageLimits: [] };
const FINALIZED = { status: 'finalized', number: 'INV-2026-000123', finalizedAt: '2026-11-01T01:00:00.000Z' };
const ROTATED_KEY = { status: 'ROTATED', expiresAt: '2026-11-23T12:05:00.000Z', replacedById: 'key_01jd3m5y2q0000000000000000' };
/** invoice.payment_failed and .payment_action_required: the first attempt's outcome, a retry scheduled. */
const paymentFailure = (paymentStatus: string, code: string, message: string): Variation => ({
  object: { paymentStatus, attemptCount: 1, nextPaymentAttempt: '2026-11-04T01:00:00.000Z', lastPaymentError: { code, message }, updatedAt: CHANGED_AT },
  previousAttributes: { paymentStatus: 'processing', nextPaymentAttempt: null, lastPaymentError: null },
});

/**
 * What makes each type's example its own: the resource's state just after the event and the
 * fields that changed, as they were (details come from event-details.ts). The fields are the
 * ones the real changes alter (webhook-events.routes.test.ts checks them).
 */
const variations: Partial<Record<CatalogType, Variation>> = {
  'subscription.created': { object: { version: 1, updatedAt: CREATED } },
  'subscription.upgraded': { object: NEW_OFFERING, previousAttributes: OLD_OFFERING },
  'subscription.downgraded': { object: { ...NEW_OFFERING, offeringId: 'off_01jd3m5y2q0000000000000001' }, previousAttributes: OLD_OFFERING },
  'subscription.plan_changed': { object: { ...NEW_OFFERING, offeringId: 'off_01jd3m5y2q0000000000000002' }, previousAttributes: OLD_OFFERING },
  'subscription.change_scheduled': {
    object: { status: 'ACTIVE_PENDING_CHANGE', scheduledChange: SCHEDULED },
    previousAttributes: { status: 'ACTIVE', scheduledChange: null },
  },
  'subscription.change_withdrawn': { previousAttributes: { status: 'ACTIVE_PENDING_CHANGE', scheduledChange: SCHEDULED } },
  'subscription.cancelled': {
    object: {
      status: 'CANCELLED',
      cancelledAt: CHANGED_AT,
      cancellationDetails: { reason: 'TOO_EXPENSIVE', cancel_channel: 'API', comment: null, requestedAt: CHANGED_AT },
    },
    previousAttributes: { status: 'ACTIVE', cancelledAt: null, cancellationDetails: null },
  },
  'subscription.past_due': {
    object: { status: 'PAST_DUE', pastDueSince: CHANGED_AT, pastDueAccessUntil: '2026-11-26T12:00:00.000Z', version: 2 },
    previousAttributes: { status: 'ACTIVE', pastDueSince: null, pastDueAccessUntil: null },
  },
  'subscription.recovered': {
    object: { status: 'ACTIVE', pastDueSince: null, pastDueAccessUntil: null, version: 3 },
    previousAttributes: { status: 'PAST_DUE', pastDueSince: CHANGED_AT, pastDueAccessUntil: '2026-11-26T12:00:00.000Z' },
  },
  'subscription.renewed': {
    object: { currentPeriodStart: PERIOD.end, currentPeriodEnd: '2027-01-01T00:00:00.000Z', updatedAt: PERIOD.end },
    previousAttributes: { currentPeriodStart: PERIOD.start, currentPeriodEnd: PERIOD.end },
  },
  'invoice.created': { object: { status: 'draft', number: null, finalizedAt: null } },
  'invoice.finalized': { object: FINALIZED, previousAttributes: { status: 'draft', number: null, finalizedAt: null } },
  'invoice.paid': {
    object: { status: 'paid', amountPaid: '49.00', amountRemaining: '0.00', paidAt: CHANGED_AT, paymentStatus: 'paid' },
    previousAttributes: { status: 'finalized', amountPaid: '0.00', paidAt: null, amountRemaining: '49.00', paymentStatus: 'unpaid' },
  },
  'invoice.payment_failed': paymentFailure('failed', 'card_declined', 'Your card was declined.'),
  'invoice.payment_action_required': paymentFailure(
    'requires_action',
    'authentication_required',
    'Your card was declined. This transaction requires authentication.',
  ),
  'invoice.voided': {
    object: { status: 'void', amountRemaining: '0.00', voidedAt: CHANGED_AT, paymentStatus: 'void' },
    previousAttributes: { status: 'finalized', voidedAt: null, amountRemaining: '49.00', paymentStatus: 'unpaid' },
  },
  'invoice.marked_uncollectible': {
    object: { status: 'uncollectible', markedUncollectibleAt: CHANGED_AT },
    previousAttributes: { status: 'finalized', markedUncollectibleAt: null },
  },
  'payment.refunded': { object: { amountRefunded: '12.50', updatedAt: CHANGED_AT }, previousAttributes: { amountRefunded: '0.00' } },
  'api_key.rotated': { object: ROTATED_KEY, previousAttributes: { status: 'ACTIVE', expiresAt: null, replacedById: null } },
  'api_key.rolled': {
    object: { status: 'REVOKED', expiresAt: null, revokedAt: CHANGED_AT, replacedById: 'key_01jd3m5y2q0000000000000000' },
    previousAttributes: { status: 'ACTIVE', replacedById: null, revokedAt: null },
  },
  'api_key.revoked': {
    object: { status: 'REVOKED', expiresAt: null, replacedById: null, revokedAt: CHANGED_AT },
    previousAttributes: { status: 'ACTIVE', revokedAt: null },
  },
  'credits.voided': {
    object: { status: 'voided', remaining: '0.00', voidedAt: CHANGED_AT, updatedAt: CHANGED_AT },
    previousAttributes: { status: 'active', remaining: '38.00', voidedAt: null },
  },
  'credits.exhausted': { object: { balance: '-0.35', threshold: null } },
  'credits.topped_up': {
    object: { source: 'purchased', status: 'active', cost: '45.00', invoiceId: 'inv_01jd3m5x7c0000000000000000', updatedAt: CHANGED_AT },
    previousAttributes: { status: 'pending' },
  },
  'credits.expired': {
    object: { status: 'expired', remaining: '0.00', expiresAt: '2026-11-23T00:00:00.000Z', updatedAt: CHANGED_AT },
    previousAttributes: { status: 'active', remaining: '12.50' },
  },
  'api_key.grace_used': { object: ROTATED_KEY },
};

/** A full example body of one type: every field of the resource, in the state the event leaves it. */
export function webhookExample(type: CatalogType): { type: CatalogType; timestamp: string; data: Record<string, unknown> } {
  const abridged = exampleOf(type);
  const kind = eventCatalog[type].resource;
  const v = variations[type] ?? {};
  const object = { ...fullResources[kind], ...abridged.data.object, ...v.object };
  const details = detailsExample(type);
  return {
    type,
    timestamp: abridged.timestamp,
    data: { object, ...(v.previousAttributes && { previousAttributes: v.previousAttributes }), ...(details && { details }) },
  };
}

/** One `webhooks` entry: the POST Tollgate makes to a subscribed endpoint. */
/** `invoice.marked_uncollectible` -> `invoiceMarkedUncollectibleEvent`: unique beside the routes' verbs. */
export const webhookOperationId = (type: CatalogType): string => `${type.replace(/[._]([a-z])/g, (_m, c: string) => c.toUpperCase())}Event`;

export function webhookOperation(type: CatalogType, resourceSchema: Schema): Schema {
  const { description, resource } = eventCatalog[type];
  const who =
    type === 'webhook.test'
      ? 'Sent to one endpoint by its test route, whatever its eventTypes.'
      : `Sent to every enabled endpoint whose eventTypes hold ${type}, ${eventCatalog[type].category}.* or *.`;
  return {
    post: {
      operationId: webhookOperationId(type),
      tags: ['Outbound webhooks'],
      security: [],
      summary: description,
      description: `${description} ${who} ${resourceGetPath[resource] === null ? '' : `data.object is the resource as ${resourceGetPath[resource]} returns it at the event's commit. `}Verify webhook-signature on the raw body before trusting it (any Standard Webhooks library does it).`,
      parameters: webhookHeaderParameters,
      requestBody: {
        required: true,
        description: 'Minified JSON, the same bytes on every attempt.',
        content: { 'application/json': { schema: webhookBodySchema(type, resourceSchema), example: webhookExample(type) } },
      },
      responses: webhookResponses,
    },
  };
}
