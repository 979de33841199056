import { Decimal, fitsMinorUnit, isCurrencyCode, isDecimalString, minorUnitDigits } from '@tollgate/pricing';
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
  const costAmount = input.costAmount === null ? null : checkAmount(input.costAmount, input.currency, 'body.cost.amount', { zero: true });
  if (input.expiresAt !== null && input.expiresAt <= input.effectiveAt)
    throw new AppError('VALIDATION_FAILED', 'expiresAt must be after effectiveAt: a grant that expires before it is effective pays for nothing.', {
      field: 'body.expiresAt',
    });
  if (input.metricNames !== null && input.metricNames.length === 0)
    throw new AppError('VALIDATION_FAILED', 'metricNames must name at least one metric, or be left out for every metric.', { field: 'body.metricNames' });
  return { ...input, amount, costAmount };
}
