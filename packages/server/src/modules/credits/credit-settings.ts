import { Type, type Static } from '@sinclair/typebox';
import { Decimal, fitsMinorUnit, isCurrencyCode, isDecimalString, minorUnitDigits } from '@tollgate/pricing';
import { Timestamp } from '../../http/schemas.js';
import { toIso } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';

/**
 * A customer's credit settings in one currency (issue 41): a low-balance alert (credits.balance_low)
 * and an automatic top-up, each fired once per crossing of its threshold, plus the exhausted
 * alert (credits.exhausted) every PREPAID customer gets. The balance they watch is the live one
 * the entitlement check computes (live-credits.ts). Fired, each is disarmed by a conditional
 * update, so two nodes, a retry or a crash never fire it twice: an alert re-arms when the balance
 * is back at or above its threshold, a top-up when the credits it bought are paid (or its invoice
 * voided), and at most `maxPerPeriod` top-ups fire per billing period.
 */

export interface AutoTopUp {
  /** Below this live balance, buy. */
  threshold: string;
  /** Credits bought each time. */
  amount: string;
  /** What the buyer pays each time (the invoice's total). */
  cost: string;
  maxPerPeriod: number;
}

export interface CreditSettings {
  customerId: string;
  currency: string;
  lowBalanceThreshold: string | null;
  autoTopUp: AutoTopUp | null;
  lowArmed: boolean;
  exhaustedArmed: boolean;
  topUpArmed: boolean;
  topUpGeneration: number;
  topUpPeriodKey: string | null;
  topUpsInPeriod: number;
  createdAt: number;
  updatedAt: number;
}

/** What the live balance calls for now. */
export interface CreditActions {
  alertLow: boolean;
  rearmLow: boolean;
  alertExhausted: boolean;
  rearmExhausted: boolean;
  topUp: boolean;
}

export const NO_ACTIONS: CreditActions = { alertLow: false, rearmLow: false, alertExhausted: false, rearmExhausted: false, topUp: false };

/** The default state of a customer without settings: nothing set, every alert armed. */
export const DEFAULT_STATE = { lowArmed: true, exhaustedArmed: true, topUpArmed: true, topUpGeneration: 0, topUpPeriodKey: null, topUpsInPeriod: 0 };

/**
 * Pure: what the settings call for at the live balance `live` (may be negative), in the billing
 * period `periodKey`. A low-balance alert fires below its threshold; the exhausted alert at or
 * below zero; a top-up below its threshold while fewer than maxPerPeriod fired in this period.
 */
export function creditActions(
  s: Pick<CreditSettings, 'lowBalanceThreshold' | 'autoTopUp' | 'lowArmed' | 'exhaustedArmed' | 'topUpArmed' | 'topUpPeriodKey' | 'topUpsInPeriod'>,
  live: string,
  periodKey: string,
): CreditActions {
  const balance = new Decimal(live);
  const low = s.lowBalanceThreshold === null ? null : balance.lt(s.lowBalanceThreshold);
  const exhausted = balance.lte(0);
  const t = s.autoTopUp;
  const firedThisPeriod = s.topUpPeriodKey === periodKey ? s.topUpsInPeriod : 0;
  return {
    alertLow: low === true && s.lowArmed,
    rearmLow: low === false && !s.lowArmed,
    alertExhausted: exhausted && s.exhaustedArmed,
    rearmExhausted: !exhausted && !s.exhaustedArmed,
    topUp: t !== null && s.topUpArmed && balance.lt(t.threshold) && firedThisPeriod < t.maxPerPeriod,
  };
}

export const anyAction = (a: CreditActions) => a.alertLow || a.rearmLow || a.alertExhausted || a.rearmExhausted || a.topUp;

// ---- The API's shapes ---------------------------------------------------------------------------

const Money = (description: string) => Type.String({ minLength: 1, maxLength: 40, description });

export const PutCreditSettingsBody = Type.Object(
  {
    lowBalanceThreshold: Type.Optional(
      Type.Union([Money('credits.balance_low is sent once each time the live balance falls below this; at least 0.'), Type.Null()], {
        description: 'null or absent: no low-balance alert.',
      }),
    ),
    autoTopUp: Type.Optional(
      Type.Union(
        [
          Type.Object(
            {
              threshold: Money('When the live balance falls below this (at least 0), buy `amount` of credits.'),
              amount: Money('Credits bought each time; greater than 0.'),
              cost: Type.Optional(Money('What the buyer pays each time (the invoice’s total); default: amount.')),
              maxPerPeriod: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'At most this many top-ups per billing period; default 1.' })),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ],
        { description: 'null or absent: no automatic top-up.' },
      ),
    ),
  },
  { additionalProperties: false, title: 'PutCreditSettingsRequest' },
);
export type PutCreditSettingsInput = Static<typeof PutCreditSettingsBody>;

export const CreditSettingsSchema = Type.Object(
  {
    object: Type.Literal('credit_settings'),
    customerId: Type.String(),
    currency: Type.String({ description: 'ISO 4217.' }),
    lowBalanceThreshold: Type.Union([Type.String(), Type.Null()]),
    autoTopUp: Type.Union([
      Type.Object({
        threshold: Type.String(),
        amount: Type.String(),
        cost: Type.String(),
        maxPerPeriod: Type.Integer(),
        toppedUpThisPeriod: Type.Integer({ description: 'Top-ups fired in the billing period of the latest one.' }),
        armed: Type.Boolean({ description: 'false: one fired and its credits are not paid yet; the next waits for them.' }),
      }),
      Type.Null(),
    ]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'CreditSettings' },
);

/** An amount of the body: decimal text, at least 0 (greater with `positive`), not finer than the currency's minor unit. */
function amountOf(value: string, currency: string, field: string, positive: boolean): string {
  if (!isDecimalString(value))
    throw new AppError('VALIDATION_FAILED', `${field} must be a decimal amount such as "5.00", got ${JSON.stringify(value)}.`, { field });
  const d = new Decimal(value);
  if (positive ? d.lte(0) : d.lt(0))
    throw new AppError('VALIDATION_FAILED', `${field} must be ${positive ? 'greater than 0' : 'at least 0'}, got ${value}.`, { field });
  if (!fitsMinorUnit(value, currency))
    throw new AppError('VALIDATION_FAILED', `${field} has more decimals than ${currency}'s minor unit (${minorUnitDigits(currency)}): ${value}.`, { field });
  return d.toFixed(minorUnitDigits(currency));
}

/** The body checked against the currency, its amounts in the currency's minor digits; refusals name the field. */
export function checkCreditSettings(input: PutCreditSettingsInput, currency: string): Pick<CreditSettings, 'lowBalanceThreshold' | 'autoTopUp'> {
  if (!isCurrencyCode(currency))
    throw new AppError('VALIDATION_FAILED', `currency must be an ISO 4217 code with a minor unit, got ${JSON.stringify(currency)}.`, {
      field: 'params.currency',
    });
  const low = input.lowBalanceThreshold ?? null;
  const t = input.autoTopUp ?? null;
  return {
    lowBalanceThreshold: low === null ? null : amountOf(low, currency, 'body.lowBalanceThreshold', false),
    autoTopUp:
      t === null
        ? null
        : {
            threshold: amountOf(t.threshold, currency, 'body.autoTopUp.threshold', false),
            amount: amountOf(t.amount, currency, 'body.autoTopUp.amount', true),
            cost: amountOf(t.cost ?? t.amount, currency, 'body.autoTopUp.cost', false),
            maxPerPeriod: t.maxPerPeriod ?? 1,
          },
  };
}

export function presentCreditSettings(s: CreditSettings): Static<typeof CreditSettingsSchema> {
  return {
    object: 'credit_settings',
    customerId: s.customerId,
    currency: s.currency,
    lowBalanceThreshold: s.lowBalanceThreshold,
    autoTopUp: s.autoTopUp === null ? null : { ...s.autoTopUp, toppedUpThisPeriod: s.topUpsInPeriod, armed: s.topUpArmed },
    createdAt: toIso(s.createdAt),
    updatedAt: toIso(s.updatedAt),
  };
}
