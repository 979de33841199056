import type { CatalogType } from './event-catalog.js';

/**
 * The `details` of each event type: what the resource cannot say (the invoice of a plan change,
 * the reason of a cancellation, the new key of a rotation). Every field is always present, null
 * when it does not apply, so a receiver reads one shape per type whichever path wrote the event
 * (an IMMEDIATE change or the renewal that applies a scheduled one). Pure data: the OpenAPI
 * document's schema and its examples come from here, and webhook-events.routes.test.ts checks
 * the messages real changes write against it, field for field.
 */

type Schema = Record<string, unknown>;
export interface DetailField {
  schema: Schema;
  description: string;
  example: unknown;
}

const MAX_ID = 100;
const Id = (prefix: string, nullable = false): Schema => ({ type: nullable ? ['string', 'null'] : 'string', maxLength: MAX_ID, description: `${prefix}_…` });
const DateTime: Schema = { type: 'string', format: 'date-time', maxLength: 40 };
const Decimal: Schema = { type: ['string', 'null'], maxLength: 40, pattern: '^-?[0-9]{1,20}(\\.[0-9]{1,12})?$' };
const nullableEnum = (values: readonly string[]): Schema => ({ type: ['string', 'null'], enum: [...values, null] });
const ids = (prefix: string): Schema => ({ type: 'array', maxItems: 10_000, items: { type: 'string', maxLength: MAX_ID }, description: `${prefix}_… ids` });

const X = (prefix: string, n = 0) => `${prefix}_01jd3m5x7c000000000000000${n}`;
const Y = (prefix: string, n = 0) => `${prefix}_01jd3m5y2q000000000000000${n}`;
const NOW = '2026-11-23T12:00:00.000Z';
const PERIOD_END = '2026-12-01T00:00:00.000Z';

// Written out, not imported: the modules that own them (plan-changes, retention-offers) import
// this one to emit, and folders do not import each other both ways. event-details.test.ts
// compares each list with its owner's.
export const changeKinds = ['UPGRADE', 'DOWNGRADE', 'LATERAL'] as const;
export const changeChannels = ['API', 'EMBED'] as const;
export const cancelReasons = ['TOO_EXPENSIVE', 'MISSING_FEATURES', 'SWITCHED_SERVICE', 'UNUSED', 'TECHNICAL_ISSUES', 'OTHER'] as const;
export const cancelChannels = ['API', 'EMBED', 'DUNNING'] as const;

const channel = (example: unknown, whenNull: string): DetailField => ({
  schema: nullableEnum(changeChannels),
  description: `Who asked: API (the operator API) or EMBED (the buyer, in the widget). ${whenNull}`,
  example,
});
const comment: DetailField = {
  schema: { type: ['string', 'null'], maxLength: 500 },
  description: 'The buyer’s own words about the cancellation, or null.',
  example: null,
};

/** subscription.upgraded, .downgraded and .plan_changed: one shape, IMMEDIATE or at the period end. */
const planChange = (
  kind: (typeof changeKinds)[number],
  amounts: { credit: string; debit: string; net: string },
  creditNote: boolean,
): Record<string, DetailField> => ({
  kind: {
    schema: nullableEnum(changeKinds),
    description: 'UPGRADE, DOWNGRADE or LATERAL, by the entry prices compared (null only for a plan_changed scheduled before changes had kinds).',
    example: kind,
  },
  applyAt: {
    schema: { enum: ['IMMEDIATE', 'PERIOD_END'] },
    description: 'IMMEDIATE, or PERIOD_END when a scheduled change took effect at the renewal.',
    example: 'IMMEDIATE',
  },
  channel: channel('API', 'Null only with a null kind.'),
  fromOfferingId: { schema: Id('off'), description: 'The offering before the change.', example: X('off') },
  toOfferingId: { schema: Id('off'), description: 'The offering now (data.object.offeringId).', example: Y('off') },
  effectiveAt: { schema: DateTime, description: 'When the change took effect, in the subscription’s time (its test clock’s, if it has one).', example: NOW },
  credit: {
    schema: Decimal,
    description: 'The unused part of the old offering’s entry price, credited. Null at PERIOD_END: nothing is prorated at the boundary.',
    example: amounts.credit,
  },
  debit: { schema: Decimal, description: 'The new offering’s entry price for the rest of the period. Null at PERIOD_END.', example: amounts.debit },
  net: { schema: Decimal, description: 'debit − credit: charged today when positive, a credit note when negative. Null at PERIOD_END.', example: amounts.net },
  invoiceId: {
    schema: Id('inv', true),
    description: 'IMMEDIATE: the change’s invoice (null when it charged nothing). PERIOD_END: the renewal’s invoice, which bills the new offering.',
    example: creditNote ? null : X('inv'),
  },
  creditNoteId: {
    schema: Id('cn', true),
    description: 'The credit note for the unused time, when one was issued (a negative net).',
    example: creditNote ? X('cn') : null,
  },
});

export const eventDetails: Partial<Record<CatalogType, Record<string, DetailField>>> = {
  'subscription.upgraded': planChange('UPGRADE', { credit: '15.00', debit: '30.00', net: '15.00' }, false),
  'subscription.downgraded': planChange('DOWNGRADE', { credit: '30.00', debit: '15.00', net: '-15.00' }, true),
  'subscription.plan_changed': planChange('LATERAL', { credit: '15.00', debit: '15.00', net: '0.00' }, false),
  'subscription.change_scheduled': {
    change: {
      schema: { enum: [...changeKinds, 'CANCEL'] },
      description: 'What waits for the period end: a plan change’s kind, or CANCEL.',
      example: 'DOWNGRADE',
    },
    fromOfferingId: { schema: Id('off'), description: 'The offering now.', example: X('off') },
    toOfferingId: { schema: Id('off', true), description: 'The offering at the period end; null for CANCEL.', example: Y('off', 1) },
    effectiveAt: { schema: DateTime, description: 'When it takes effect: the current period’s end.', example: PERIOD_END },
    channel: channel('API', 'Never null here.'),
    reason: { schema: nullableEnum(cancelReasons), description: 'CANCEL: the buyer’s reason, if one was given. Null for a plan change.', example: null },
    comment,
  },
  'subscription.change_withdrawn': {
    withdrawn: {
      schema: {
        type: 'object',
        required: ['change', 'toOfferingId'],
        properties: { change: { enum: [...changeKinds, 'CHANGE', 'CANCEL'] }, toOfferingId: Id('off', true) },
      },
      description: 'What was waiting: the change (CHANGE for one scheduled before changes had kinds) and its offering, or CANCEL with a null offering.',
      example: { change: 'DOWNGRADE', toOfferingId: Y('off', 1) },
    },
    channel: channel('API', 'Never null here.'),
  },
  'subscription.cancelled': {
    applyAt: {
      schema: { enum: ['IMMEDIATE', 'PERIOD_END'] },
      description: 'IMMEDIATE, or PERIOD_END when a scheduled cancellation took effect at the renewal.',
      example: 'IMMEDIATE',
    },
    reason: {
      schema: nullableEnum(cancelReasons),
      description:
        'The buyer’s reason, if one was given (as data.object.cancellationDetails.reason). At PERIOD_END, the one given when it was scheduled (null for one scheduled before subscriptions kept it).',
      example: 'TOO_EXPENSIVE',
    },
    channel: {
      schema: nullableEnum(cancelChannels),
      description:
        'Who asked: API (the operator API), EMBED (the buyer, in the widget) or DUNNING (the workspace’s final rule after the last payment retry failed), as data.object.cancellationDetails.cancel_channel; null only at PERIOD_END for one scheduled before subscriptions kept it.',
      example: 'API',
    },
    comment,
    creditNoteId: { schema: Id('cn', true), description: 'The credit note for the unused part of the period paid in advance, if any.', example: X('cn') },
    revokedKeyIds: {
      schema: ids('key'),
      description: 'The product keys bound to the subscription, revoked with it (each has its api_key.revoked).',
      example: [X('key')],
    },
    revokedClientCredentialIds: { schema: ids('cc'), description: 'The OAuth client credentials bound to it, revoked with it.', example: [] },
    invoiceId: { schema: Id('inv', true), description: 'The last invoice: the period’s usage up to the cancellation.', example: Y('inv') },
  },
  'subscription.renewed': {
    closedPeriodStart: { schema: DateTime, description: 'The period that ended.', example: '2026-11-01T00:00:00.000Z' },
    closedPeriodEnd: { schema: DateTime, description: 'Exclusive: the renewal’s instant.', example: PERIOD_END },
    currentPeriodStart: { schema: DateTime, description: 'The period that began (as on data.object).', example: PERIOD_END },
    currentPeriodEnd: { schema: DateTime, description: 'The new period’s end, exclusive.', example: '2027-01-01T00:00:00.000Z' },
    invoiceId: {
      schema: Id('inv', true),
      description: 'The renewal’s invoice: the closed period’s usage and the new period’s entry price.',
      example: X('inv'),
    },
    priceVersionId: { schema: Id('pv', true), description: 'The price version the new period is billed at.', example: X('pv') },
  },
  'subscription.past_due': {
    invoiceId: { schema: Id('inv'), description: 'The invoice whose automatic payment failed.', example: X('inv') },
    number: { schema: { type: ['string', 'null'], maxLength: 40 }, description: 'Its number.', example: 'INV-2026-000123' },
    pastDueAccessUntil: {
      schema: DateTime,
      description:
        'The end of the grace period (as data.object.pastDueAccessUntil): from then the entitlement check answers PAYMENT_PAST_DUE until it is paid.',
      example: '2026-11-26T12:00:00.000Z',
    },
  },
  'subscription.recovered': {
    invoiceId: { schema: Id('inv'), description: 'The invoice whose settlement left nothing failing.', example: X('inv') },
    number: { schema: { type: ['string', 'null'], maxLength: 40 }, description: 'Its number.', example: 'INV-2026-000123' },
    invoiceStatus: {
      schema: { enum: ['paid', 'uncollectible', 'void'] },
      description: 'paid, or written off (uncollectible, void).',
      example: 'paid',
    },
  },
  'credit_note.created': {
    invoiceNumber: { schema: { type: ['string', 'null'], maxLength: 40 }, description: 'The number of the invoice it credits.', example: 'INV-2026-000123' },
  },
  'api_key.rotated': {
    newKeyId: { schema: Id('key'), description: 'The key that replaces it (its secret is never sent).', example: Y('key') },
    graceEndsAt: {
      schema: { ...DateTime, type: ['string', 'null'] },
      description: 'When the old key stops working; null on a test clock (see graceEndsAtClock).',
      example: '2026-11-23T12:05:00.000Z',
    },
    testClockId: { schema: Id('clock', true), description: 'The test clock of the key’s subscription, if any: the grace runs in its time.', example: null },
    graceEndsAtClock: {
      schema: { ...DateTime, type: ['string', 'null'] },
      description: 'On a test clock: when the grace ends in the clock’s time.',
      example: null,
    },
  },
  'api_key.rolled': {
    newKeyId: { schema: Id('key'), description: 'The key that replaces it (its secret is never sent).', example: Y('key') },
    graceEndsAt: { schema: { type: 'null' }, description: 'Always null: a rolled key stops at once.', example: null },
    testClockId: { schema: { type: 'null' }, description: 'Always null (no grace).', example: null },
    graceEndsAtClock: { schema: { type: 'null' }, description: 'Always null (no grace).', example: null },
  },
  'api_key.revoked': {
    reason: {
      schema: { enum: ['requested', 'subscription_cancelled'] },
      description: 'requested (DELETE /api/v1/api-keys/{id}), or subscription_cancelled (its subscription, data.object.subscriptionId, was cancelled).',
      example: 'requested',
    },
  },
  'api_key.grace_used': {
    usedAt: { schema: DateTime, description: 'The first request with the old key after its rotation.', example: NOW },
  },
};

/** The JSON schema of a type's details: every field required (null when it does not apply); new fields may be added. */
export function detailsSchema(type: CatalogType): Schema | null {
  const fields = eventDetails[type];
  if (!fields) return null;
  return {
    type: 'object',
    description: 'What the resource cannot say. Every field is present, null when it does not apply; new fields may be added, so ignore those you do not know.',
    required: Object.keys(fields),
    properties: Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, { ...f.schema, description: f.description }])),
  };
}

/** A type's example details, in the order the server writes them. */
export function detailsExample(type: CatalogType): Record<string, unknown> | undefined {
  const fields = eventDetails[type];
  return fields && Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.example]));
}
