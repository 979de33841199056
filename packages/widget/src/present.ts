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
