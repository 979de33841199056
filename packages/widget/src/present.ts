import { describeOffering, formatDate, formatPeriodAmount } from '@tollgate/pricing';
import type { Candidate, Preview, WidgetConfig } from './api.js';
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

export function kindLabel(m: Messages, kind: Candidate['kind']): string {
  return m[`kind${kind}`];
}

export const dateOf = (iso: string): string => formatDate(Date.parse(iso));

export interface PreviewLine {
  label: string;
  amount: string;
}

/**
 * The figures of a preview, in order. A cancellation shows none before it is done (the backend
 * sends no credit for it): the credit-note amount appears in the result.
 */
export function previewLines(m: Messages, p: Preview): PreviewLine[] {
  const money = (x: string) => formatPeriodAmount(x.replace(/^-/, ''), p.currency);
  const lines: PreviewLine[] = [];
  if (p.action !== 'CANCEL' && p.applyAt === 'IMMEDIATE') {
    if (p.credit !== null) lines.push({ label: m.credit, amount: `−${money(p.credit)}` });
    if (p.debit !== null) lines.push({ label: m.debit, amount: money(p.debit) });
    if (p.netChargeToday !== null)
      lines.push(
        p.netChargeToday.startsWith('-')
          ? { label: m.netCreditToday, amount: money(p.netChargeToday) }
          : { label: m.netToday, amount: money(p.netChargeToday) },
      );
  }
  if (p.applyAt === 'IMMEDIATE' && /[1-9]/.test(p.usageToDate) && !p.usageToDate.startsWith('-'))
    lines.push({ label: m.usageToDate, amount: money(p.usageToDate) });
  if (p.nextRenewalAt !== null && p.nextRenewalAmount !== null)
    lines.push({ label: m.nextRenewal(dateOf(p.nextRenewalAt)), amount: money(p.nextRenewalAmount) });
  return lines;
}

/** The amount of a credit note as the buyer reads it. */
export const amountText = (amount: string, currency: string): string => formatPeriodAmount(amount, currency);
