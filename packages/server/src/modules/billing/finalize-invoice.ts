import { Decimal, roundToMinorUnit, unitPricingWith } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { loadPriceVersion } from '../catalog/price-version.js';
import { documentNumber } from './billing-settings.js';
import { billingSettingsOf, takeDocumentNumber, takeDocumentNumbers } from './billing-settings.repository.js';
import type { AuditEventInput } from '../audit/audit-event.js';
import { totalOf, type Invoice, type IssuedLine } from './invoice.js';
import { findInvoice, findIssuedInvoicesEndingBetween, saveInvoice } from './invoice.repository.js';
import { issued } from './issue-invoice.js';
import { unitsOfOffering } from './priced-units.js';
import type { PricedUnit } from './rate-period.js';
import { ratePeriodUsage } from './rate-subscription-period.js';

/**
 * How far back a finalization looks for invoices whose usage grew after they were finalized: the
 * API takes events up to 35 days old. (Uploads take any age; usage older than this that reaches
 * an invoiced period is not billed again: see the billing README.)
 */
export const LATE_USAGE_WINDOW_MS = 36 * 86_400_000;

const USAGE_TYPES = new Set(['usage', 'minimum_fee']);
const billsUsage = (i: Invoice) => i.billingReason === 'subscription_cycle' || i.billingReason === 'subscription_cancel';

/** The units an invoice's usage was rated with: its price version's, or (no offering) its PER_UNIT lines'. */
async function unitsOfInvoice(deps: Deps, tenant: Tenant, invoice: Invoice): Promise<PricedUnit[]> {
  if (invoice.priceVersionId !== null) {
    const priced = await loadPriceVersion(deps, tenant, invoice.priceVersionId);
    if (priced) return unitsOfOffering(priced);
  }
  return invoice.lines
    .filter((l) => l.type === 'usage' && l.metricName !== null && l.rate !== null)
    .map((l) => ({ ratePlanId: null, pricing: unitPricingWith({ metricName: l.metricName!, pricingModel: 'PER_UNIT', rate: l.rate! }), override: null }));
}

/** The invoice's usage period rated again, as of now, with the prices it was issued with. */
async function rerateUsage(deps: Deps, tenant: Tenant, invoice: Invoice): Promise<IssuedLine[]> {
  const period = { start: invoice.periodStart, end: invoice.periodEnd };
  const units = await unitsOfInvoice(deps, tenant, invoice);
  const { rating } = await ratePeriodUsage(deps, tenant, { customerId: invoice.customerId, currency: invoice.currency }, units, period);
  return rating.lines.map((l) => issued(l, period));
}

const usageTotal = (lines: readonly IssuedLine[], currency: string) =>
  totalOf(
    lines.filter((l) => USAGE_TYPES.has(l.type)),
    currency,
  );

/** The earliest period end of the invoices a finalization of `invoice` may adjust (see lateUsageAdjustments). */
export const lateUsageFrom = (invoice: Pick<Invoice, 'periodStart'>) => invoice.periodStart - LATE_USAGE_WINDOW_MS;

/**
 * Adjustment lines for usage that reached earlier periods after their invoices were finalized:
 * each such period rated again with its invoice's prices, less what was billed for it (its own
 * usage lines, or the last adjustment made to it since). Rated totals only grow with usage, so an
 * adjustment is a charge; a second late event gives a second adjustment, never the first again.
 * `issued`: the subscription's issued invoices ending in [lateUsageFrom, periodEnd], oldest first
 * (findIssuedInvoicesEndingBetween; it may hold other subscriptions', which are left out).
 */
async function lateUsageAdjustments(deps: Deps, tenant: Tenant, invoice: Invoice, issued: readonly Invoice[]): Promise<IssuedLine[]> {
  if (invoice.subscriptionId === null) return [];
  const from = lateUsageFrom(invoice);
  const earlier = issued.filter(
    (x) => x.subscriptionId === invoice.subscriptionId && x.periodEnd >= from && x.periodEnd <= invoice.periodEnd && x.id !== invoice.id && billsUsage(x),
  );
  const lines: IssuedLine[] = [];
  for (const x of earlier) {
    let billed = usageTotal(x.lines, x.currency);
    // Adjustments to x on invoices finalized after it, in period order: the last is what x's period stands at.
    for (const y of earlier) {
      for (const l of y.lines) if (l.type === 'adjustment' && l.adjustsInvoiceId === x.id && l.ratedTotal !== null) billed = l.ratedTotal;
    }
    const now = usageTotal(await rerateUsage(deps, tenant, x), x.currency);
    const diff = new Decimal(now).minus(billed);
    if (diff.isZero()) continue;
    lines.push({
      type: 'adjustment',
      description: `Usage reported after invoice ${x.number ?? x.id} was finalized (period ${new Date(x.periodStart).toISOString()} to ${new Date(x.periodEnd).toISOString()})`,
      ratePlanId: null,
      metricName: null,
      pricingModel: null,
      quantity: null,
      freeUnits: null,
      billableQuantity: null,
      rate: null,
      amount: roundToMinorUnit(diff, invoice.currency),
      periodStart: x.periodStart,
      periodEnd: x.periodEnd,
      adjustsInvoiceId: x.id,
      ratedTotal: now,
    });
  }
  return lines;
}

/**
 * A draft as finalized at `at` (its subscription's time): its lines (a rerating's, when it was
 * rerated) and the adjustments added, numbered, frozen.
 */
function finalized(deps: Pick<Deps, 'clock'>, invoice: Invoice, lines: IssuedLine[], prefix: string, n: number, at: number): Invoice {
  const total = totalOf(lines, invoice.currency);
  return {
    ...invoice,
    lines,
    subtotal: total,
    total,
    status: 'finalized',
    number: documentNumber(prefix, at, n),
    finalizedAt: at,
    updatedAt: deps.clock.now(),
  };
}

export function invoiceFinalizedAudit(invoice: Invoice): AuditEventInput {
  return {
    eventType: 'invoice.finalized',
    targetType: 'invoice',
    targetId: invoice.id,
    payload: {
      number: invoice.number,
      total: invoice.total,
      currency: invoice.currency,
      subscriptionId: invoice.subscriptionId,
      customerId: invoice.customerId,
    },
  };
}

/**
 * Drafts rated in the caller's transaction, finalized at once (their grace was over when they
 * were issued: a catch-up, a test clock moved past it): adjustments for earlier periods added,
 * numbered in the order given, one number range taken for all. Not written: the caller inserts
 * them. The sequence's row stays locked until the commit, so call this last.
 */
export async function finalizeNewDrafts(deps: Deps, tenant: Tenant, drafts: readonly Invoice[], at: number, prefix: string): Promise<Invoice[]> {
  if (drafts.length === 0) return [];
  const subscriptionIds = [...new Set(drafts.flatMap((d) => (d.subscriptionId === null ? [] : [d.subscriptionId])))];
  const from = Math.min(...drafts.map(lateUsageFrom));
  const before = Math.max(...drafts.map((d) => d.periodEnd));
  const issued = await findIssuedInvoicesEndingBetween(deps.db, tenant, subscriptionIds, from, before);
  const lines: IssuedLine[][] = [];
  for (const d of drafts) lines.push([...d.lines, ...(await lateUsageAdjustments(deps, tenant, d, issued))]);
  const first = await takeDocumentNumbers(deps.db, tenant, 'invoice', drafts.length);
  return drafts.map((d, k) => finalized(deps, d, lines[k]!, prefix, first + k, at));
}

/**
 * Finalizes a draft at `at` (its subscription's time): its usage is rated once more (usage that
 * arrived in the grace period lands here), adjustments for earlier periods are added, it takes
 * the next number of the tenant's sequence, and it is frozen. With `onlyDraft: false` (the job),
 * an invoice finalized meanwhile is returned as it is.
 */
export async function finalizeInvoice(
  deps: Deps,
  tenant: Tenant,
  origin: OperationContext,
  id: string,
  at: number,
  opts: { onlyDraft: boolean },
): Promise<Invoice> {
  return inTransaction(deps.db, async (trx) => {
    const txDeps: Deps = { ...deps, db: trx };
    const invoice = await findInvoice(trx, tenant, id, { lock: deps.dialect === 'postgres' });
    if (!invoice) throw notFound('invoice', id);
    if (invoice.status !== 'draft') {
      if (!opts.onlyDraft) return invoice;
      throw new AppError('CONFLICT', `Invoice '${id}' is ${invoice.status}; only a draft can be finalized.`);
    }
    let lines = invoice.lines;
    if (billsUsage(invoice)) {
      const rerated = await rerateUsage(txDeps, tenant, invoice);
      lines = [...lines.filter((l) => !USAGE_TYPES.has(l.type) && l.type !== 'adjustment'), ...rerated];
    }
    const issued =
      invoice.subscriptionId === null
        ? []
        : await findIssuedInvoicesEndingBetween(trx, tenant, [invoice.subscriptionId], lateUsageFrom(invoice), invoice.periodEnd);
    lines = [...lines, ...(await lateUsageAdjustments(txDeps, tenant, invoice, issued))];
    const settings = await billingSettingsOf(trx, tenant);
    const done = finalized(deps, invoice, lines, settings.invoicePrefix, await takeDocumentNumber(trx, tenant, 'invoice'), at);
    await saveInvoice(trx, tenant, done);
    await recordAudit(trx, deps, origin, invoiceFinalizedAudit(done));
    return done;
  });
}
