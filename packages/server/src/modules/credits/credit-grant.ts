import { Type, type Static } from '@sinclair/typebox';
import { Decimal, fitsMinorUnit, isCurrencyCode, isDecimalString, minorUnitDigits } from '@tollgate/pricing';
import { Metadata, NullableTimestamp, Timestamp } from '../../http/schemas.js';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';

/**
 * Prepaid credits (issue 41): a grant is credit a customer may spend on usage, in one currency,
 * drawn by @tollgate/pricing's burn-down; the ledger records every change to it.
 */

export const grantSources = ['purchased', 'promotional', 'recurring', 'rollover', 'adjustment'] as const;
export type GrantSource = (typeof grantSources)[number];

export const ledgerEntryTypes = ['grant', 'top_up', 'draw', 'expiry', 'void', 'rollover'] as const;
export type LedgerEntryType = (typeof ledgerEntryTypes)[number];

/** pending: a purchase not yet paid (not in the ledger); active; voided (its unused part); expired. */
export type GrantStatus = 'pending' | 'active' | 'voided' | 'expired';

export interface CreditGrant {
  id: string;
  customerId: string;
  currency: string;
  amount: string;
  remaining: string;
  priority: number;
  effectiveAt: number;
  expiresAt: number | null;
  source: GrantSource;
  status: GrantStatus;
  subscriptionId: string | null;
  metricNames: string[] | null;
  costAmount: string | null;
  invoiceId: string | null;
  metadata: Record<string, string>;
  voidedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface LedgerEntry {
  id: string;
  customerId: string;
  currency: string;
  grantId: string;
  type: LedgerEntryType;
  /** Signed decimal text in the currency's minor unit. */
  amount: string;
  balanceAfter: string;
  subscriptionId: string | null;
  invoiceId: string | null;
  occurredAt: number;
  createdAt: number;
}

/** What a new grant is stored with (checkNewGrant has checked it). */
export interface NewGrant {
  /** Given when something must name the grant before it is stored (a purchase's invoice); else made on insert. */
  id?: string;
  customerId: string;
  currency: string;
  amount: string;
  priority: number;
  effectiveAt: number;
  expiresAt: number | null;
  source: GrantSource;
  status: 'pending' | 'active';
  subscriptionId: string | null;
  metricNames: string[] | null;
  costAmount: string | null;
  invoiceId: string | null;
  metadata: Record<string, string>;
}

/** The ledger entry that enters a grant of this source: a purchase is a top-up, a rollover a rollover, the rest grants. */
export function entryTypeOf(source: GrantSource): LedgerEntryType {
  return source === 'purchased' ? 'top_up' : source === 'rollover' ? 'rollover' : 'grant';
}

/** An amount in the currency's minor unit: plain decimal text, greater than 0 (or at least 0 with `zero`), not finer than the minor unit. */
function checkAmount(value: string, currency: string, field: string, opts: { zero?: boolean } = {}): string {
  if (!isDecimalString(value))
    throw new AppError('VALIDATION_FAILED', `${field} must be a decimal amount such as "20.00", got ${JSON.stringify(value)}.`, { field });
  const d = new Decimal(value);
  if (opts.zero ? d.lt(0) : d.lte(0))
    throw new AppError('VALIDATION_FAILED', `${field} must be ${opts.zero ? 'at least 0' : 'greater than 0'}, got ${value}.`, { field });
  if (!fitsMinorUnit(value, currency))
    throw new AppError('VALIDATION_FAILED', `${field} has more decimals than ${currency}'s minor unit (${minorUnitDigits(currency)}): ${value}.`, { field });
  return d.toFixed(minorUnitDigits(currency));
}

/**
 * Checks a grant as asked for (fields named as in the API's body) and returns it with its
 * amounts in the currency's minor digits. The caller checks what needs storage: that the
 * customer exists and bills in this currency, and the subscription.
 */
export function checkNewGrant(input: NewGrant): NewGrant {
  if (!isCurrencyCode(input.currency))
    throw new AppError('VALIDATION_FAILED', `currency must be an ISO 4217 code with a minor unit, got ${JSON.stringify(input.currency)}.`, {
      field: 'body.currency',
    });
  const amount = checkAmount(input.amount, input.currency, 'body.amount');
  const costAmount = input.costAmount === null ? null : checkAmount(input.costAmount, input.currency, 'body.cost', { zero: true });
  if (input.expiresAt !== null && input.expiresAt <= input.effectiveAt)
    throw new AppError('VALIDATION_FAILED', 'expiresAt must be after effectiveAt: a grant that expires before it is effective pays for nothing.', {
      field: 'body.expiresAt',
    });
  if (input.metricNames !== null && input.metricNames.length === 0)
    throw new AppError('VALIDATION_FAILED', 'metricNames must name at least one metric, or be left out for every metric.', { field: 'body.metricNames' });
  return { ...input, amount, costAmount };
}

// ---- The API's shapes ---------------------------------------------------------------------------

/**
 * What the API's POST makes: promotional and adjustment grants (active at once), and purchased
 * ones (pending until the invoice for their cost is paid). Recurring grants and rollovers come
 * from offerings.
 */
export const operatorGrantSources = ['promotional', 'adjustment', 'purchased'] as const;

const MoneyText = (description: string) =>
  Type.String({ maxLength: 40, description: `${description} Decimal text in the currency's minor digits, e.g. "20.00" (USD), "1200" (JPY), "0.125" (KWD).` });

export const CreditGrantSchema = Type.Object(
  {
    id: Type.String({ description: 'cgr_…' }),
    object: Type.Literal('credit_grant'),
    customerId: Type.String(),
    currency: Type.String({ description: 'ISO 4217.' }),
    amount: MoneyText('What was granted.'),
    remaining: MoneyText('What is left of it: the amount less what was drawn, voided or expired.'),
    priority: Type.Integer({ description: 'A lower number is drawn first (then the soonest expiry, then the oldest grant).' }),
    effectiveAt: Timestamp,
    expiresAt: Type.Union([Timestamp, Type.Null()], { description: 'From this instant it pays for nothing; null: never expires.' }),
    source: Type.Union(
      grantSources.map((s) => Type.Literal(s)),
      {
        description:
          'promotional or adjustment (granted by an operator); purchased (bought: POST with source purchased, or an automatic top-up); recurring and rollover (an offering’s recurringCredits).',
      },
    ),
    status: Type.Union([Type.Literal('pending'), Type.Literal('active'), Type.Literal('voided'), Type.Literal('expired')], {
      description: 'pending: a purchase not yet paid; voided: its unused part was voided (what was drawn stays drawn).',
    }),
    subscriptionId: Type.Union([Type.String(), Type.Null()], { description: "Limited to this subscription's usage; null for any of the customer's." }),
    metricNames: Type.Union([Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20 }), Type.Null()], {
      description: "Limited to these metrics' usage; null for every metric.",
    }),
    cost: Type.Union([MoneyText('What the buyer paid for it (revenue reports).'), Type.Null()], { description: 'null: not given.' }),
    invoiceId: Type.Union([Type.String(), Type.Null()], { description: 'purchased: the invoice for its cost; the grant is pending until it is paid.' }),
    metadata: Metadata,
    voidedAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'CreditGrant' },
);

export const CreateCreditGrantBody = Type.Object(
  {
    customerId: Type.String({ minLength: 1, maxLength: 255, description: 'The customer: its cus_ id or your externalId.' }),
    amount: Type.String({ minLength: 1, maxLength: 40, description: 'Greater than 0, in the currency\'s minor unit at most: "20.00".' }),
    currency: Type.String({ minLength: 3, maxLength: 3, description: "ISO 4217; one the customer's subscriptions bill in, when it has any." }),
    priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'A lower number is drawn first; 0 to 100, default 50.' })),
    effectiveAt: Type.Optional(
      Type.String({ format: 'date-time', maxLength: 40, description: "Default: now (the customer's test clock's time, if it has one)." }),
    ),
    expiresAt: Type.Optional(
      Type.Union([Type.String({ format: 'date-time', maxLength: 40 }), Type.Null()], {
        description: 'After effectiveAt and in the future; omitted or null: never expires.',
      }),
    ),
    source: Type.Optional(
      Type.Union(
        operatorGrantSources.map((s) => Type.Literal(s)),
        {
          description:
            'promotional (the default) or adjustment: active at once. purchased: the customer buys it; an invoice for its cost is issued and finalized at once, and the grant is pending until it is paid.',
        },
      ),
    ),
    cost: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 40,
        description: 'What the buyer pays for it, at least 0, in the currency’s minor unit at most; purchased: what the invoice charges (default: amount).',
      }),
    ),
    subscriptionId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: "Limit it to this subscription of the customer's (then the currency must be the subscription's).",
      }),
    ),
    metricNames: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 20, description: "Limit it to these metrics' usage." }),
    ),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, title: 'CreateCreditGrantRequest' },
);
export type CreateCreditGrantInput = Static<typeof CreateCreditGrantBody>;

export const CreditLedgerEntrySchema = Type.Object(
  {
    id: Type.String({ description: 'cle_…' }),
    object: Type.Literal('credit_ledger_entry'),
    customerId: Type.String(),
    currency: Type.String(),
    grantId: Type.String({ description: 'The grant it concerns.' }),
    type: Type.Union(
      ledgerEntryTypes.map((t) => Type.Literal(t)),
      { description: 'grant, top_up and rollover add a grant; draw pays for usage; expiry and void take away what a grant had left.' },
    ),
    amount: MoneyText('Signed: positive adds to the balance, negative takes from it.'),
    balanceAfter: MoneyText("The customer's balance in this currency after this entry."),
    subscriptionId: Type.Union([Type.String(), Type.Null()]),
    invoiceId: Type.Union([Type.String(), Type.Null()], { description: 'A draw: the invoice that shows it.' }),
    occurredAt: Timestamp,
    createdAt: Timestamp,
  },
  { title: 'CreditLedgerEntry' },
);

export const CreditBalanceSchema = Type.Object(
  {
    object: Type.Literal('credit_balance'),
    customerId: Type.String(),
    balances: Type.Array(Type.Object({ currency: Type.String(), balance: MoneyText('The sum of its ledger in this currency.'), updatedAt: Timestamp }), {
      maxItems: 200,
      description: 'One per currency the customer has credits in.',
    }),
  },
  { title: 'CreditBalance' },
);

export function presentCreditGrant(g: CreditGrant): Static<typeof CreditGrantSchema> {
  return {
    id: g.id,
    object: 'credit_grant',
    customerId: g.customerId,
    currency: g.currency,
    amount: g.amount,
    remaining: g.remaining,
    priority: g.priority,
    effectiveAt: toIso(g.effectiveAt),
    expiresAt: toIsoOrNull(g.expiresAt),
    source: g.source,
    status: g.status,
    subscriptionId: g.subscriptionId,
    metricNames: g.metricNames,
    cost: g.costAmount,
    invoiceId: g.invoiceId,
    metadata: g.metadata,
    voidedAt: toIsoOrNull(g.voidedAt),
    createdAt: toIso(g.createdAt),
    updatedAt: toIso(g.updatedAt),
  };
}

export function presentLedgerEntry(e: LedgerEntry): Static<typeof CreditLedgerEntrySchema> {
  return {
    id: e.id,
    object: 'credit_ledger_entry',
    customerId: e.customerId,
    currency: e.currency,
    grantId: e.grantId,
    type: e.type,
    amount: e.amount,
    balanceAfter: e.balanceAfter,
    subscriptionId: e.subscriptionId,
    invoiceId: e.invoiceId,
    occurredAt: toIso(e.occurredAt),
    createdAt: toIso(e.createdAt),
  };
}
