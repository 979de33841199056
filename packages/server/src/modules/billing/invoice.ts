import { Type, type Static } from '@sinclair/typebox';
import { Decimal, roundToMinorUnit } from '@tollgate/pricing';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import { Metadata, Timestamp } from '../../http/schemas.js';
import type { InvoiceLine } from './rate-period.js';
import { Amount, InvoiceLineSchema, Nullable } from './upcoming-invoice.js';
import { CollectionMethodSchema, type CollectionMethod } from './billing-settings.js';
import type { PaymentAttemptStatus } from '../payments/payment.js';
import type { Tenant } from '../../lib/tenant.js';
import { hostedInvoiceUrl, type InvoiceLinks } from './hosted-invoice.js';

/**
 * An issued invoice, modelled on Stripe's. draft → finalized → paid | void | uncollectible
 * (uncollectible → paid | void too). A draft waits for the workspace's grace period so that late
 * usage lands on it; finalizing numbers it (gapless per tenant) and freezes it: nothing that
 * happens later changes its lines or totals. Usage that arrives for its period afterwards becomes
 * an adjustment line on the subscription's next invoice. Credit notes reduce what is due without
 * touching the invoice's own lines.
 */
export const invoiceStatuses = ['draft', 'finalized', 'paid', 'void', 'uncollectible'] as const;
export type InvoiceStatus = (typeof invoiceStatuses)[number];

/** Why the invoice exists (Stripe's billing_reason). */
export const billingReasons = ['subscription_create', 'subscription_cycle', 'subscription_cancel', 'subscription_update', 'credit_purchase'] as const;
export type BillingReason = (typeof billingReasons)[number];

/** A line as issued: a rated line plus the period it covers and, for an adjustment, what it adjusts. */
export interface IssuedLine extends InvoiceLine {
  periodStart: number;
  periodEnd: number;
  /** adjustment: the invoice whose period the late usage belongs to. */
  adjustsInvoiceId: string | null;
  /** adjustment: that period's usage charge as rated now, which the adjustment brings it to. */
  ratedTotal: string | null;
}

export interface Invoice {
  id: string;
  customerId: string;
  subscriptionId: string | null;
  cycleKey: string | null;
  billingReason: BillingReason;
  status: InvoiceStatus;
  number: string | null;
  currency: string;
  periodStart: number;
  periodEnd: number;
  /**
   * Where the billing period starts whose free allowance the usage shares, when the invoice bills
   * part of one (the part after an IMMEDIATE plan change); null: periodStart.
   */
  allowanceFrom: number | null;
  priceVersionId: string | null;
  lines: IssuedLine[];
  subtotal: string;
  total: string;
  creditedTotal: string;
  amountPaid: string;
  /** Fixed when the invoice is issued, from the workspace's billing settings. */
  collectionMethod: CollectionMethod;
  /** send_invoice: set at finalization (finalizedAt plus the days until due); else null. */
  dueDate: number | null;
  /** Provider attempts made so far (Stripe's attempt_count). */
  attemptCount: number;
  /** When the collection job next charges it, in its time (Stripe's next_payment_attempt); null: nothing scheduled. */
  nextPaymentAttemptAt: number | null;
  /** When its first automatic payment failed: the retry schedule counts from it. */
  paymentFailedAt: number | null;
  /** The latest provider attempt's status; null: none made. */
  latestAttemptStatus: PaymentAttemptStatus | null;
  /** The latest failed attempt's reason; cleared when one succeeds. */
  lastPaymentError: { code: string; message: string | null } | null;
  /** Where the buyer completes a payment that needs them (3-D Secure); null: none needed. */
  paymentActionUrl: string | null;
  testClockId: string | null;
  finalizeAt: number;
  finalizedAt: number | null;
  paidAt: number | null;
  voidedAt: number | null;
  markedUncollectibleAt: number | null;
  metadata: Record<string, string>;
  createdAt: number;
  updatedAt: number;
}

/** Lines are rounded once each; the total adds them and is never rounded again. */
export function totalOf(lines: readonly Pick<InvoiceLine, 'amount'>[], currency: string): string {
  return roundToMinorUnit(
    lines.reduce((acc, l) => acc.plus(l.amount), new Decimal(0)),
    currency,
  );
}

/** The invoice with these lines, its subtotal and total added up again from them. */
export function withLines(invoice: Invoice, lines: IssuedLine[]): Invoice {
  const total = totalOf(lines, invoice.currency);
  return { ...invoice, lines, subtotal: total, total };
}

/**
 * Where the invoice's payment stands, for people and for filters: paid, void, or, while open, the
 * latest attempt's status (processing, requires_action, failed), else partially_paid or unpaid.
 */
export const paymentStatuses = ['unpaid', 'processing', 'requires_action', 'failed', 'partially_paid', 'paid', 'void'] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

export function paymentStatusOf(i: Pick<Invoice, 'status' | 'latestAttemptStatus' | 'amountPaid'>): PaymentStatus {
  if (i.status === 'paid') return 'paid';
  if (i.status === 'void') return 'void';
  switch (i.latestAttemptStatus) {
    case 'pending':
    case 'processing':
      return 'processing';
    case 'requires_action':
      return 'requires_action';
    case 'failed':
      return 'failed';
    default:
      return new Decimal(i.amountPaid).gt(0) ? 'partially_paid' : 'unpaid';
  }
}

/** What the invoice asks to be paid: its total less credit notes. */
export const amountDue = (i: Pick<Invoice, 'total' | 'creditedTotal' | 'currency'>) =>
  roundToMinorUnit(new Decimal(i.total).minus(i.creditedTotal), i.currency);

/** What is still owed: the total less credit notes and payments, never below zero. */
export function amountRemaining(i: Pick<Invoice, 'total' | 'creditedTotal' | 'amountPaid' | 'status' | 'currency'>): string {
  if (i.status === 'void' || i.status === 'paid') return roundToMinorUnit('0', i.currency);
  const left = new Decimal(i.total).minus(i.creditedTotal).minus(i.amountPaid);
  return roundToMinorUnit(Decimal.max(left, 0), i.currency);
}

export const IssuedLineSchema = Type.Object(
  {
    ...InvoiceLineSchema.properties,
    periodStart: Timestamp,
    periodEnd: Type.String({ format: 'date-time', description: 'Exclusive.' }),
    adjustsInvoiceId: Nullable(Type.String({ description: 'adjustment: the invoice whose period the late usage belongs to.' })),
  },
  { title: 'IssuedLine' },
);

export const InvoiceSchema = Type.Object(
  {
    id: Type.String({ description: 'inv_…' }),
    object: Type.Literal('invoice'),
    customerId: Type.String(),
    subscriptionId: Nullable(Type.String()),
    billingReason: Type.Union(billingReasons.map((r) => Type.Literal(r))),
    status: Type.Union(invoiceStatuses.map((s) => Type.Literal(s))),
    number: Nullable(
      Type.String({
        description:
          'Given at finalization: the prefix, the year (UTC, real time even for a subscription on a test clock) and a gapless sequence per workspace and environment, e.g. INV-2026-000123.',
      }),
    ),
    currency: Type.String(),
    periodStart: Type.String({ format: 'date-time', description: 'The period whose usage the invoice bills (a first invoice: the period it opens).' }),
    periodEnd: Type.String({ format: 'date-time', description: 'Exclusive.' }),
    priceVersionId: Nullable(Type.String({ description: 'pv_…: the prices the usage was rated with.' })),
    lines: Type.Array(IssuedLineSchema, { maxItems: 1000 }),
    subtotal: Amount('All lines.'),
    total: Amount('What the invoice charges: the sum of its lines, a retention discount line included; no taxes.'),
    creditedTotal: Amount('Credit notes issued against it.'),
    amountPaid: Amount('Paid so far: the recorded payments, or the whole remainder when marked paid.'),
    amountDue: Amount('What the invoice asks to be paid: its total less credit notes.'),
    amountRemaining: Amount('Still owed: total less credit notes and payments (0 once paid or void).'),
    collectionMethod: CollectionMethodSchema,
    dueDate: Nullable(
      Type.String({
        format: 'date-time',
        description: 'send_invoice: the date the buyer pays by (finalization plus daysUntilDue); null otherwise, and for a draft.',
      }),
    ),
    paymentStatus: Type.Union(
      paymentStatuses.map((p) => Type.Literal(p)),
      {
        description:
          'Where its payment stands: paid, void, or while it is open the latest attempt’s outcome (processing, requires_action: the buyer must act at paymentActionUrl, failed: see lastPaymentError and nextPaymentAttempt), else partially_paid or unpaid. The attempts: GET /api/v1/invoices/{id}/payments.',
      },
    ),
    attemptCount: Type.Integer({ description: 'Attempts made through the payment provider so far.' }),
    nextPaymentAttempt: Nullable(
      Type.String({
        format: 'date-time',
        description:
          'When the collection job charges it next (in its test clock’s time, if any): at finalization, then the retry schedule; null when nothing is scheduled.',
      }),
    ),
    lastPaymentError: Type.Union([
      Type.Object(
        {
          code: Type.String({
            maxLength: 100,
            description: 'The provider’s decline or error code: card_declined, insufficient_funds, authentication_required, no_payment_method…',
          }),
          message: Nullable(Type.String({ maxLength: 500 })),
        },
        { description: 'Why the latest attempt failed; null once one succeeds or before any fails.' },
      ),
      Type.Null(),
    ]),
    hostedInvoiceUrl: Nullable(
      Type.String({
        format: 'uri',
        maxLength: 2048,
        description:
          'The invoice’s payment page (Stripe’s hosted_invoice_url): it shows what is owed and takes the buyer to a Stripe-hosted Checkout page to pay it; the address to put in the e-mail of a send_invoice invoice. The same for the invoice’s whole life; PUBLIC_URL sets its origin. Null for a draft and a void invoice.',
      }),
    ),
    paymentActionUrl: Nullable(
      Type.String({ maxLength: 2000, description: 'requires_action: the provider’s page where the buyer completes the payment (3-D Secure).' }),
    ),
    testClockId: Nullable(Type.String()),
    finalizeAt: Type.String({ format: 'date-time', description: 'A draft is finalized automatically at this time (its period end plus the grace period).' }),
    finalizedAt: Nullable(Timestamp),
    paidAt: Nullable(Timestamp),
    voidedAt: Nullable(Timestamp),
    markedUncollectibleAt: Nullable(Timestamp),
    metadata: Metadata,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Invoice' },
);

/** `links` and `tenant` give the payment page's address (hosted-invoice.ts). */
export function presentInvoice(i: Invoice, links: InvoiceLinks, tenant: Tenant): Static<typeof InvoiceSchema> {
  const {
    cycleKey: _cycleKey,
    allowanceFrom: _allowanceFrom,
    nextPaymentAttemptAt: _next,
    paymentFailedAt: _failedAt,
    latestAttemptStatus: _latest,
    ...rest
  } = i;
  return {
    ...rest,
    object: 'invoice',
    periodStart: toIso(i.periodStart),
    periodEnd: toIso(i.periodEnd),
    lines: i.lines.map((l) => {
      const { ratedTotal: _ratedTotal, ...line } = l;
      return { ...line, periodStart: toIso(l.periodStart), periodEnd: toIso(l.periodEnd) };
    }),
    amountDue: amountDue(i),
    amountRemaining: amountRemaining(i),
    paymentStatus: paymentStatusOf(i),
    hostedInvoiceUrl: hostedInvoiceUrl(links, tenant, i),
    nextPaymentAttempt: toIsoOrNull(i.nextPaymentAttemptAt),
    dueDate: toIsoOrNull(i.dueDate),
    finalizeAt: toIso(i.finalizeAt),
    finalizedAt: toIsoOrNull(i.finalizedAt),
    paidAt: toIsoOrNull(i.paidAt),
    voidedAt: toIsoOrNull(i.voidedAt),
    markedUncollectibleAt: toIsoOrNull(i.markedUncollectibleAt),
    createdAt: toIso(i.createdAt),
    updatedAt: toIso(i.updatedAt),
  };
}
