import { roundToMinorUnit } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import type { EventOrigin } from '../audit/audit-event.repository.js';
import type { AuditEventInput } from '../audit/audit-event.js';
import type { BillingSettings } from './billing-settings.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { emitWebhookEvent, resourceEvent, type WebhookEventInput } from '../outbound-webhooks/emit-webhook-events.js';
import type { CatalogType } from '../outbound-webhooks/event-catalog.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Subscription } from '../subscriptions/subscription.js';
import { billingSettingsOf } from './billing-settings.repository.js';
import type { InvoiceLinks } from './hosted-invoice.js';
import { presentInvoice, totalOf, type BillingReason, type Invoice, type IssuedLine } from './invoice.js';
import { insertInvoice } from './invoice.repository.js';
import type { InvoiceLine } from './rate-period.js';
import type { Period } from './rate-subscription-period.js';

/** A rated line placed on an invoice: the period it covers. */
export function issued(line: InvoiceLine, period: Period): IssuedLine {
  return { ...line, periodStart: period.start, periodEnd: period.end, adjustsInvoiceId: null, ratedTotal: null };
}

/** Who an invoice is for: a subscription, or (id null) a customer alone, as for a purchase of credits. */
export type InvoicedParty = Pick<Subscription, 'customerId' | 'currency' | 'collectionMethod' | 'testClockId'> & { id: string | null };

export interface DraftInput {
  sub: InvoicedParty;
  cycleKey: string;
  billingReason: BillingReason;
  /** The usage period it bills (a first invoice: the period it opens). */
  period: Period;
  priceVersionId: string | null;
  /** Where the billing period whose allowance the usage shares starts, when `period` is part of one (see Invoice). */
  allowanceFrom?: number | null;
  lines: IssuedLine[];
  /** The subscription's time when it is issued: the draft waits the grace period from here. */
  at: number;
}

/** A draft invoice for a subscription, as issued now: it waits the workspace's grace period for late usage. */
export function draftInvoice(deps: Pick<Deps, 'ids' | 'clock'>, settings: BillingSettings, input: DraftInput): Invoice {
  const { sub } = input;
  const total = totalOf(input.lines, sub.currency);
  const now = deps.clock.now();
  return {
    id: deps.ids.next('invoice'),
    customerId: sub.customerId,
    subscriptionId: sub.id,
    cycleKey: input.cycleKey,
    billingReason: input.billingReason,
    status: 'draft',
    number: null,
    currency: sub.currency,
    periodStart: input.period.start,
    periodEnd: input.period.end,
    allowanceFrom: input.allowanceFrom ?? null,
    priceVersionId: input.priceVersionId,
    lines: input.lines,
    subtotal: total,
    total,
    creditedTotal: roundToMinorUnit('0', sub.currency),
    amountPaid: roundToMinorUnit('0', sub.currency),
    collectionMethod: sub.collectionMethod ?? settings.collectionMethod,
    dueDate: null,
    attemptCount: 0,
    nextPaymentAttemptAt: null,
    paymentFailedAt: null,
    latestAttemptStatus: null,
    lastPaymentError: null,
    paymentActionUrl: null,
    testClockId: sub.testClockId,
    finalizeAt: input.at + settings.invoiceGraceMs,
    finalizedAt: null,
    paidAt: null,
    voidedAt: null,
    markedUncollectibleAt: null,
    metadata: {},
    createdAt: now,
    updatedAt: now,
  };
}

export function invoiceCreatedAudit(invoice: Invoice): AuditEventInput {
  return {
    eventType: 'invoice.created',
    targetType: 'invoice',
    targetId: invoice.id,
    payload: {
      customerId: invoice.customerId,
      subscriptionId: invoice.subscriptionId,
      billingReason: invoice.billingReason,
      currency: invoice.currency,
      total: invoice.total,
      periodStart: new Date(invoice.periodStart).toISOString(),
      periodEnd: new Date(invoice.periodEnd).toISOString(),
    },
  };
}

/**
 * An invoice's webhook message, ordered with its subscription's events. `data.object` is the
 * invoice as it stands after this event: a renewal that issues and finalizes one in the same
 * transaction sends the draft with invoice.created and the numbered invoice with invoice.finalized.
 */
export function invoiceEvent(links: InvoiceLinks, tenant: Tenant, type: CatalogType, invoice: Invoice, before?: Invoice): WebhookEventInput {
  return resourceEvent(type, invoice.subscriptionId, (i: Invoice) => presentInvoice(i, links, tenant), invoice, before);
}

/**
 * Issues a draft invoice for a subscription inside the caller's transaction, with its audit
 * event; null when this cycle's invoice exists already (a second run, another node). The draft
 * waits the workspace's grace period for late usage, then the finalizing job numbers it.
 */
export async function issueDraftInvoice(deps: Deps, tenant: Tenant, origin: EventOrigin, input: DraftInput): Promise<Invoice | null> {
  const invoice = draftInvoice(deps, await billingSettingsOf(deps.db, tenant), input);
  if (!(await insertInvoice(deps.db, tenant, invoice))) return null;
  await recordAudit(deps.db, deps, origin, invoiceCreatedAudit(invoice));
  await emitWebhookEvent(deps.db, deps, { ...tenant, correlationId: origin.correlationId }, invoiceEvent(deps, tenant, 'invoice.created', invoice));
  return invoice;
}
