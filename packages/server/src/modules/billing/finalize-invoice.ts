import { Decimal, roundToMinorUnit, unitPricingWith } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { atomically } from '../../db/transaction.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordAudits } from '../audit/audit-event.repository.js';
import { emitWebhookEvents } from '../outbound-webhooks/emit-webhook-events.js';
import { readUsageOncePer } from './read-rating-usage.js';
import { loadPriceVersion } from '../catalog/price-version.js';
import { documentNumber, type BillingSettings } from './billing-settings.js';
import { billingSettingsOf, takeDocumentNumbers } from './billing-settings.repository.js';
import { findPaymentProvider } from '../payments/payment-provider-connection.repository.js';
import { changeCustomerBalance, customerBalancesOf } from '../payments/customer-balance.repository.js';
import { balancePayment } from '../payments/payment.js';
import { insertPayment } from '../payments/payment.repository.js';
import type { WebhookEventInput } from '../outbound-webhooks/emit-webhook-events.js';

/** What finalization reads of the billing settings: the number's prefix and, for send_invoice, the days until due. */
type NumberingSettings = Pick<BillingSettings, 'invoicePrefix' | 'daysUntilDue'>;
import type { AuditEventInput } from '../audit/audit-event.js';
import type { InvoiceLinks } from './hosted-invoice.js';
import { amountDue, totalOf, type Invoice, type IssuedLine } from './invoice.js';
import { findInvoices, findIssuedInvoicesEndingBetween, saveInvoice } from './invoice.repository.js';
import { invoiceEvent, issued } from './issue-invoice.js';
import { rediscounted } from './discount-line.js';
import { applyCredits } from './invoice-credits.js';
import { recurringCreditsOf, rollOverCredits } from './recurring-credits.js';
import { billingOrigin } from './billing-origin.js';
import { findSubscription } from '../subscriptions/subscription.repository.js';
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
// subscription_update: a plan change bills the usage before it (modules/plan-changes).
const billsUsage = (i: Invoice) => i.billingReason !== 'subscription_create';

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
  const { rating } = await ratePeriodUsage(deps, tenant, { customerId: invoice.customerId, currency: invoice.currency }, units, period, invoice.allowanceFrom);
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

/** A cycle invoice's period is over for good: its subscription's recurring credits roll over (recurring-credits.ts). */
async function rollOverAfter(deps: Deps, tenant: Tenant, invoice: Invoice): Promise<void> {
  if (invoice.priceVersionId === null || invoice.subscriptionId === null) return;
  const rc = recurringCreditsOf(await loadPriceVersion(deps, tenant, invoice.priceVersionId));
  if (rc?.rolloverCap == null) return;
  const sub = await findSubscription(deps.db, tenant, invoice.subscriptionId);
  if (sub) await rollOverCredits(deps, billingOrigin(deps, tenant), sub, rc, invoice.periodEnd);
}

/**
 * A draft as finalized at `at` (its subscription's time): its lines (a rerating's, when it was
 * rerated) and the adjustments added, numbered, frozen.
 */
function finalized(
  deps: Pick<Deps, 'clock'>,
  invoice: Invoice,
  lines: IssuedLine[],
  settings: NumberingSettings,
  n: number,
  at: number,
  collects: boolean,
): Invoice {
  const total = totalOf(lines, invoice.currency);
  // With a payment provider connected, an invoice collected automatically is charged at once by
  // the collection step that follows finalization (collect-invoice.ts); nothing owed, nothing charged.
  const charges = collects && invoice.collectionMethod === 'charge_automatically' && new Decimal(total).minus(invoice.creditedTotal).gt(0);
  return {
    ...invoice,
    lines,
    subtotal: total,
    total,
    status: 'finalized',
    // The workspace's real year, not the test clock's: one sequence per workspace and environment
    // reads in order (INV-2026-000002 never follows INV-2027-000001).
    number: documentNumber(settings.invoicePrefix, deps.clock.now(), n),
    // Due in the invoice's own time (a test clock's, if it lives on one), as Stripe's days_until_due.
    dueDate: invoice.collectionMethod === 'send_invoice' ? at + settings.daysUntilDue * 86_400_000 : null,
    nextPaymentAttemptAt: charges ? at : null,
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
 * Drafts finalized at `at` (their subscriptions' time) in the caller's transaction: with `rerate`,
 * their usage rated once more (usage that arrived in the grace period lands here; false for
 * drafts rated in this same transaction, where nothing can have landed since), adjustments for
 * earlier periods added, numbered in the order given from one range of the tenant's sequence.
 * `adjust: false` leaves the adjustments to the next finalization (a plan change's invoice shows
 * exactly what its preview showed). Not written: the caller saves (or inserts) them. The sequence's row stays locked until the
 * commit, so call this last.
 */
export async function finalizeDrafts(
  deps: Deps,
  tenant: Tenant,
  drafts: readonly Invoice[],
  at: number,
  settings: NumberingSettings,
  opts: { rerate: boolean; adjust?: boolean },
): Promise<Invoice[]> {
  if (drafts.length === 0) return [];
  const subscriptionIds = [...new Set(drafts.flatMap((d) => (d.subscriptionId === null ? [] : [d.subscriptionId])))];
  const from = Math.min(...drafts.map(lateUsageFrom));
  const before = Math.max(...drafts.map((d) => d.periodEnd));
  const issued = await findIssuedInvoicesEndingBetween(deps.db, tenant, subscriptionIds, from, before);
  const lines: IssuedLine[][] = [];
  for (const d of drafts) {
    let own = d.lines;
    // A discount line is recomputed from the re-rated lines, once, and stays last of them.
    if (opts.rerate && billsUsage(d))
      own = rediscounted([...own.filter((l) => !USAGE_TYPES.has(l.type) && l.type !== 'adjustment'), ...(await rerateUsage(deps, tenant, d))], d.currency);
    // A PREPAID subscription's usage as finalized, paid from credits (drawn at the close already: only the difference).
    own = await applyCredits(deps, tenant, d, own, at);
    // Its draws are final now: what the period's recurring credits left may roll over.
    if (d.billingReason === 'subscription_cycle') await rollOverAfter(deps, tenant, d);
    lines.push([...own, ...(opts.adjust === false ? [] : await lateUsageAdjustments(deps, tenant, d, issued))]);
  }
  const collects = (await findPaymentProvider(deps.db, tenant, 'stripe')) !== null;
  // Before the number: the sequence's row is the last one this transaction takes.
  const spent = await spendBalances(deps, tenant, drafts, lines, at);
  const first = await takeDocumentNumbers(deps.db, tenant, 'invoice', drafts.length);
  return drafts.map((d, k) => paidFrom(finalized(deps, d, lines[k]!, settings, first + k, at, collects), spent.get(d.id) ?? null, at));
}

/**
 * The customers' balances (credit notes credited to them) spent on the drafts being finalized, in
 * the order given: each takes what it owes, at most what is left, as a payment of provider
 * customer_balance (written here, in the caller's transaction), so amountRemaining, and what
 * collection charges, is only the rest. One read of the group's balances, held until the commit
 * on PostgreSQL (two finalizations never spend the same money); nothing for customers without one.
 */
async function spendBalances(deps: Deps, tenant: Tenant, drafts: readonly Invoice[], lines: readonly IssuedLine[][], at: number): Promise<Map<string, string>> {
  const balances = await customerBalancesOf(
    deps.db,
    tenant,
    drafts.map((d) => d.customerId),
    { lock: deps.dialect === 'postgres' },
  );
  const spent = new Map<string, string>();
  if (balances.size === 0) return spent;
  const read = new Map(balances);
  for (const [k, d] of drafts.entries()) {
    const key = `${d.customerId}:${d.currency}`;
    const left = balances.get(key);
    if (left === undefined) continue;
    const owed = new Decimal(totalOf(lines[k]!, d.currency)).minus(d.creditedTotal).minus(d.amountPaid);
    const take = Decimal.min(owed, left);
    if (take.lte(0)) continue;
    const amount = roundToMinorUnit(take, d.currency);
    spent.set(d.id, amount);
    balances.set(key, roundToMinorUnit(new Decimal(left).minus(amount), d.currency));
    await insertPayment(
      deps.db,
      tenant,
      balancePayment({
        id: deps.ids.next('payment'),
        invoiceId: d.id,
        customerId: d.customerId,
        amount,
        currency: d.currency,
        paidAt: at,
        createdAt: deps.clock.now(),
      }),
    );
  }
  for (const [key, balance] of balances) {
    const before = read.get(key)!;
    if (balance === before) continue;
    const [customerId, currency] = key.split(':') as [string, string];
    await changeCustomerBalance(deps.db, tenant, customerId, currency, before, new Decimal(balance).minus(before).toFixed(), deps.clock.now());
  }
  return spent;
}

/** A finalized invoice with `amount` of it paid from the customer's balance: paid, when that is all it asks; else collection charges the rest. */
function paidFrom(invoice: Invoice, amount: string | null, at: number): Invoice {
  if (amount === null) return invoice;
  const amountPaid = roundToMinorUnit(new Decimal(invoice.amountPaid).plus(amount), invoice.currency);
  if (new Decimal(amountPaid).lt(amountDue(invoice))) return { ...invoice, amountPaid };
  return { ...invoice, amountPaid, status: 'paid', paidAt: at, nextPaymentAttemptAt: null };
}

/**
 * invoice.paid for an invoice its customer's balance paid whole at finalization (paidFrom): the
 * audit event and webhook message the caller writes after its invoice.finalized ones; none otherwise.
 */
export function paidAtFinalization(links: InvoiceLinks, tenant: Tenant, invoice: Invoice): { audit: AuditEventInput; message: WebhookEventInput } | null {
  if (invoice.status !== 'paid') return null;
  const before: Invoice = { ...invoice, status: 'finalized', paidAt: null, amountPaid: roundToMinorUnit('0', invoice.currency) };
  return {
    audit: {
      eventType: 'invoice.paid',
      targetType: 'invoice',
      targetId: invoice.id,
      payload: { number: invoice.number, from: 'finalized', to: 'paid', total: invoice.total, amountPaid: invoice.amountPaid, provider: 'customer_balance' },
    },
    message: invoiceEvent(links, tenant, 'invoice.paid', invoice, before),
  };
}

/**
 * Finalizes a tenant's drafts (ids, numbered in that order) at `at` in one transaction (see
 * finalizeDrafts), with an audit event and an invoice.finalized webhook message each: the invoices found, and which of them it finalized.
 * An invoice that is no longer a draft is returned as it is, or, with `onlyDraft`, refused (409).
 * `skipLocked` (the job, PostgreSQL): drafts another node is finalizing are left out, not waited for.
 */
export async function finalizeInvoices(
  deps: Deps,
  tenant: Tenant,
  origin: OperationContext,
  ids: readonly string[],
  at: number,
  opts: { onlyDraft: boolean; skipLocked?: boolean },
): Promise<{ invoices: Invoice[]; finalized: Invoice[] }> {
  return atomically(deps.db, async (trx) => {
    const txDeps: Deps = { ...deps, db: trx };
    readUsageOncePer(trx);
    const lock = deps.dialect === 'postgres' ? (opts.skipLocked ? 'skip-locked' : 'wait') : null;
    const found = new Map((await findInvoices(trx, tenant, ids, lock)).map((i) => [i.id, i]));
    const invoices = ids.flatMap((id) => (found.has(id) ? [found.get(id)!] : []));
    if (opts.onlyDraft) {
      if (invoices.length < ids.length)
        throw notFound(
          'invoice',
          ids.find((id) => !found.has(id))!,
        );
      const done = invoices.find((i) => i.status !== 'draft');
      if (done) throw new AppError('CONFLICT', `Invoice '${done.id}' is ${done.status}; only a draft can be finalized.`);
    }
    const settings = await billingSettingsOf(trx, tenant);
    const drafts = invoices.filter((i) => i.status === 'draft');
    const finalized = await finalizeDrafts(txDeps, tenant, drafts, at, settings, { rerate: true });
    for (const i of finalized) await saveInvoice(trx, tenant, i);
    const paid = finalized.flatMap((i) => paidAtFinalization(deps, tenant, i) ?? []);
    await recordAudits(trx, deps, [...finalized.map((i) => ({ origin, event: invoiceFinalizedAudit(i) })), ...paid.map((p) => ({ origin, event: p.audit }))]);
    await emitWebhookEvents(trx, deps, [
      ...finalized.map((i, k) => ({ origin, event: invoiceEvent(deps, tenant, 'invoice.finalized', i, drafts[k]) })),
      ...paid.map((p) => ({ origin, event: p.message })),
    ]);
    const byId = new Map(finalized.map((i) => [i.id, i]));
    return { invoices: invoices.map((i) => byId.get(i.id) ?? i), finalized };
  });
}

/** Finalizes one draft at `at` (see finalizeInvoices). */
export async function finalizeInvoice(
  deps: Deps,
  tenant: Tenant,
  origin: OperationContext,
  id: string,
  at: number,
  opts: { onlyDraft: boolean },
): Promise<Invoice> {
  const [invoice] = (await finalizeInvoices(deps, tenant, origin, [id], at, opts)).invoices;
  if (!invoice) throw notFound('invoice', id);
  return invoice;
}
