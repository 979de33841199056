import { Type, type Static } from '@sinclair/typebox';
import { Decimal, roundToMinorUnit } from '@tollgate/pricing';
import { toIso } from '../../lib/clock.js';
import type { Subscription } from '../subscriptions/subscription.js';
import type { RatedPeriod } from './rate-subscription-period.js';

export const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
export const Amount = (description: string) => Type.String({ description: `${description} Decimal text with the currency's minor digits, e.g. "12.50".` });

export const InvoiceLineSchema = Type.Object(
  {
    type: Type.Union(
      (['entry_price', 'usage', 'minimum_fee', 'proration', 'adjustment', 'discount', 'credits', 'credit_purchase'] as const).map((t) => Type.Literal(t)),
      {
        description:
          'entry_price: in advance, for the period of the line; usage and minimum_fee: in arrears, for the closed period; proration: part of an entry price; adjustment: usage reported after the invoice of its period was finalized; discount: a retention discount (negative; rate is the percentage off the entry-price, usage, minimum-fee and credits lines); credits: what one prepaid credit grant paid of the usage (negative; creditGrantId names it); credit_purchase: the cost of prepaid credits bought (creditGrantId names the grant).',
      },
    ),
    description: Type.String(),
    ratePlanId: Nullable(Type.String()),
    metricName: Nullable(Type.String()),
    pricingModel: Nullable(Type.String()),
    quantity: Nullable(Type.String({ description: 'Units in the period after multipliers (PERCENTAGE: transaction value).' })),
    freeUnits: Nullable(Type.String({ description: 'Units the free allowance covered.' })),
    billableQuantity: Nullable(Type.String({ description: 'Units charged for (OUTCOME_BASED: outcome-weighted).' })),
    rate: Nullable(Type.String({ description: 'The rate after any offering override (discount: the percentage off).' })),
    amount: Amount('This line, rounded once, half up; negative for a discount and for credits.'),
    creditGrantId: Type.Optional(
      Type.String({ maxLength: 40, description: 'credits and credit_purchase lines only: the credit grant (cgr_…) that paid, or that was bought.' }),
    ),
  },
  { title: 'InvoiceLine' },
);

export const UpcomingInvoiceSchema = Type.Object(
  {
    object: Type.Literal('upcoming_invoice'),
    subscriptionId: Type.String(),
    customerId: Type.String(),
    offeringId: Type.Union([Type.String(), Type.Null()]),
    currency: Type.String(),
    periodStart: Type.String({ format: 'date-time' }),
    periodEnd: Type.String({ format: 'date-time', description: 'Exclusive.' }),
    lines: Type.Array(InvoiceLineSchema, {
      maxItems: 1000,
      description:
        'The entry price of the next period (billed in advance; absent when the subscription ends at this period end), then each unit of each plan for this period (with its minimum-fee top-up after it), then a retention discount while the subscription has one.',
    }),
    entryPrice: Amount('The entry price line (0 in a trial or without one).'),
    usageAmount: Amount('The usage lines.'),
    minimumFees: Amount('The minimum-fee top-ups.'),
    subtotal: Amount('All lines.'),
    discountAmount: Amount('The discount lines (negative, or 0).'),
    total: Amount('What the invoice will charge, the discount included; no taxes.'),
  },
  { title: 'UpcomingInvoice' },
);
export type UpcomingInvoice = Static<typeof UpcomingInvoiceSchema>;

export function presentUpcomingInvoice(sub: Subscription, rated: RatedPeriod): UpcomingInvoice {
  const sum = (type: string) =>
    roundToMinorUnit(
      rated.rating.lines.filter((l) => l.type === type).reduce((acc, l) => acc.plus(l.amount), new Decimal(0)),
      rated.currency,
    );
  return {
    object: 'upcoming_invoice',
    subscriptionId: sub.id,
    customerId: sub.customerId,
    offeringId: sub.offeringId,
    currency: rated.currency,
    periodStart: toIso(rated.period.start),
    periodEnd: toIso(rated.period.end),
    lines: rated.rating.lines,
    entryPrice: sum('entry_price'),
    usageAmount: sum('usage'),
    minimumFees: sum('minimum_fee'),
    discountAmount: sum('discount'),
    subtotal: rated.rating.subtotal,
    total: rated.rating.total,
  };
}
