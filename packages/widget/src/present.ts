import { describeOffering, formatDate, formatPeriodAmount } from '@tollgate/pricing';
import type { Candidate, ChangeResult, Preview, WidgetConfig } from './api.js';
import type { Messages } from './messages.js';

/**
 * Pure wording for the widget's steps. Prices come from @tollgate/pricing's display module, the
 * one the hosted pricing page renders with, so a price reads the same on every surface.
 */

/** A candidate's entry price as the pricing page words it, from the published configuration. */
export function candidatePrice(config: WidgetConfig, offeringId: string): string {
  const offering = config.offerings.find((o) => o.id === offeringId);
  return offering ? describeOffering(offering, config.ratePlans).price : '';
}

/**
 * The entry price per month ("$40.83/mo" for $490.00/yr), so a buyer compares an annual candidate
 * with a monthly one on one scale, as the pricing page does (spec: per-period prices are compared
 * per month). Null when it would only repeat the price (a monthly offering, "Free") or there is
 * none (usage-only, one-time).
 */
export function candidatePerMonth(config: WidgetConfig, offeringId: string): string | null {
  const offering = config.offerings.find((o) => o.id === offeringId);
  if (!offering) return null;
  const display = describeOffering(offering, config.ratePlans);
  return display.perMonth !== null && display.perMonth !== display.price ? display.perMonth : null;
}

/** Whether a candidate is PREPAID: its usage draws from the buyer's credit balance (messages.prepaid). */
export function candidatePrepaid(config: WidgetConfig, offeringId: string): boolean {
  return config.offerings.find((o) => o.id === offeringId)?.billingMode === 'PREPAID';
}

/** One billable unit of a candidate, as a compact line and the sentences that qualify it. */
export interface UnitLine {
  /** "API calls: $0.0020 / call after 1,000 free": the unit's label and headline, as on the page. */
  text: string;
  /** How a tier table bills ("Each token is billed at the rate of the tier it falls in."), or null. */
  note: string | null;
  /** "Minimum $5.00/mo", or null. */
  minimum: string | null;
}

/**
 * Every unit of an offering's plans, in the pricing page's words. The widget has no room for the
 * tier tables or outcome weights, so it keeps each unit's headline and, for a tier table, the
 * sentence that says how it bills; the OUTCOME_BASED note is left out, since without the weights
 * it lists ("Other statuses bill at full price") it would not say which statuses.
 */
export function candidateUnits(config: WidgetConfig, offeringId: string): UnitLine[] {
  const offering = config.offerings.find((o) => o.id === offeringId);
  if (!offering) return [];
  return describeOffering(offering, config.ratePlans).plans.flatMap((plan) =>
    plan.units.map((u) => ({ text: `${u.label}: ${u.headline}`, note: u.tiers === null ? null : u.note, minimum: u.minimum })),
  );
}

export function kindLabel(m: Messages, kind: Candidate['kind']): string {
  return m[`kind${kind}`];
}

export const dateOf = (iso: string): string => formatDate(Date.parse(iso));

export interface PreviewLine {
  label: string;
  amount: string;
  /** What is charged or credited today: the figure the buyer decides on, which stands out. */
  total: boolean;
}

/**
 * The figures of a preview, in order. A cancellation shows none before it is done (the backend
 * sends no credit for it): the credit-note amount appears in the result. Only the net of today
 * stands out (`total`): the credit and the charge above it are how it is made up.
 */
export function previewLines(m: Messages, p: Preview): PreviewLine[] {
  const money = (x: string) => formatPeriodAmount(x.replace(/^-/, ''), p.currency);
  const lines: PreviewLine[] = [];
  if (p.action !== 'CANCEL' && p.applyAt === 'IMMEDIATE') {
    if (p.credit !== null) lines.push({ label: m.credit, amount: `−${money(p.credit)}`, total: false });
    if (p.debit !== null) lines.push({ label: m.debit, amount: money(p.debit), total: false });
    if (p.netChargeToday !== null)
      lines.push({ label: p.netChargeToday.startsWith('-') ? m.netCreditToday : m.netToday, amount: money(p.netChargeToday), total: true });
  }
  if (p.applyAt === 'IMMEDIATE' && /[1-9]/.test(p.usageToDate) && !p.usageToDate.startsWith('-'))
    lines.push({ label: m.usageToDate, amount: money(p.usageToDate), total: false });
  if (p.nextRenewalAt !== null && p.nextRenewalAmount !== null)
    lines.push({ label: m.nextRenewal(dateOf(p.nextRenewalAt)), amount: money(p.nextRenewalAmount), total: false });
  return lines;
}

/** The amount of a credit note as the buyer reads it. */
export const amountText = (amount: string, currency: string): string => formatPeriodAmount(amount, currency);

/**
 * The done step's lines for a change or cancellation: what happened, the status, and the invoice
 * and credit note by the number printed on them, the one a buyer finds in their documents. The id
 * (inv_…, cn_…) only stands in when there is no number: a draft invoice, or an older server.
 */
export function resultLines(m: Messages, r: ChangeResult): string[] {
  const lines: string[] = [];
  if (r.action === 'CANCEL') lines.push(r.applyAt === 'PERIOD_END' && r.effectiveAt ? m.doneCancelAt(dateOf(r.effectiveAt)) : m.doneCancelledNow);
  else if (r.applyAt === 'PERIOD_END' && r.scheduledAt) lines.push(m.doneScheduled(r.offeringName ?? '', dateOf(r.scheduledAt)));
  else if (r.payment && r.payment.status !== 'succeeded') {
    // Paid first: the change waits for its payment, and the buyer reads why.
    const name = r.offeringName ?? '';
    if (r.payment.status === 'failed') lines.push(m.donePaymentFailed(name, r.payment.failureMessage ?? r.payment.failureCode ?? 'declined'));
    else if (r.payment.status === 'requires_action') lines.push(m.donePaymentAction(name));
    else lines.push(m.donePaymentPending(name));
  } else lines.push(m.doneChanged(r.offeringName ?? ''));
  const status = `status${r.status}`;
  if (status in m) lines.push(m[status as 'statusACTIVE']);
  if (r.invoiceId) lines.push(m.invoice(r.invoiceNumber ?? r.invoiceId));
  if (r.creditNoteId !== null && r.creditNoteAmount !== null)
    lines.push(m.creditNote(r.creditNoteNumber ?? r.creditNoteId, amountText(r.creditNoteAmount, r.subscription.currency)));
  return lines;
}
