/**
 * Revenue for the home chart, from the invoices list (the API has no revenue report): the totals
 * of issued invoices (finalized, paid or uncollectible; not drafts, not voided ones) by the UTC day
 * they were finalized, per currency. Sums are exact (chart.ts); never across currencies. Pure.
 */
import type { DayAmount } from './chart.js';

export interface IssuedInvoice {
  status: string;
  currency: string;
  total: string;
  finalizedAt: string | null;
  createdAt: string;
}

const ISSUED = new Set(['finalized', 'paid', 'uncollectible']);

/** Each issued invoice's total on the day it was finalized, keyed by currency. */
export function issuedTotals(invoices: readonly IssuedInvoice[]): DayAmount[] {
  return invoices
    .filter((i) => ISSUED.has(i.status) && i.finalizedAt !== null)
    .map((i) => ({ key: i.currency, day: (i.finalizedAt as string).slice(0, 10), value: i.total }));
}

/**
 * How far back the newest-first list must be read: a draft is finalized at the latest when the
 * workspace's grace period (at most 30 days) ends, so an invoice created well over that before the
 * chart's first day cannot have been finalized in it. 100 days leaves room to spare.
 */
export const LOOKBACK_DAYS = 100;

/** True once a newest-first page reaches invoices created before `fromDay` less the lookback: no older one can count. */
export function readFarEnough(page: readonly Pick<IssuedInvoice, 'createdAt'>[], fromDay: string): boolean {
  const last = page[page.length - 1];
  if (!last) return true;
  const cutoff = Date.parse(`${fromDay}T00:00:00Z`) - LOOKBACK_DAYS * 86_400_000;
  return Date.parse(last.createdAt) < cutoff;
}
