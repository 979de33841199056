import { burnDown, chargesOverTime, Decimal, drawOrder, roundToMinorUnit, type BurnCharge, type BurnGrant } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import { loadPriceVersion } from '../catalog/price-version.js';
import { rediscounted } from './discount-line.js';
import type { Invoice, IssuedLine } from './invoice.js';
import { unitsOfOffering } from './priced-units.js';
import { NO_UNIT } from './rate-period.js';
import { ratePeriodUsage } from './rate-subscription-period.js';
import { hoursWithUsage } from '../usage/usage-hourly.repository.js';

const HOUR = 3_600_000;
const hourStart = (t: number) => t - (((t % HOUR) + HOUR) % HOUR);
import type { CreditGrant } from '../credits/credit-grant.js';
import { creditsChanged } from '../credits/live-credits.js';
import { appendLedgerEntries, drawableGrants, holdCreditBalance, type NewLedgerEntry } from '../credits/credit-ledger.repository.js';

/**
 * A PREPAID subscription's invoice paid from credits (issue 41): its usage lines are burnt down
 * against the customer's grants (@tollgate/pricing's burnDown, in time order and draw order), and
 * each grant that pays appears as a negative `credits` line naming it. Credits pay `usage` lines
 * only: not the entry price, minimum-fee top-ups or adjustments for earlier periods.
 *
 * When: at a period's close (the renewal's draft, so the balance the check reads counts the closed
 * period during the grace period), and again at finalization, when usage that arrived in the grace
 * period was rated. The second burn starts from the grants as they were before the first (what
 * is left of them plus what this invoice drew, read from its credits lines), and the ledger gets
 * only the difference per grant: more drawn, or (rarely: a volume price that fell) some given
 * back. Each invoice draws when it is rated, in the order invoices are rated; two subscriptions
 * sharing a grant are not interleaved in time.
 *
 * The instants: a grant's effective and expiry instants split the period into stretches, and
 * each usage line's money is spread over them by what its rated total grew by in each (the
 * usage up to each instant rated as the invoice rates it; chargesOverTime). A grant therefore pays
 * only for usage that occurred while it was effective and unexpired, to the millisecond.
 */

const DRAWN = new Set(['usage']);

/** The usage lines a burn-down pays: of the invoice's own period, with something to pay. */
const drawnLines = (invoice: Invoice, lines: readonly IssuedLine[]) =>
  lines.filter((l) => DRAWN.has(l.type) && l.periodStart === invoice.periodStart && l.periodEnd === invoice.periodEnd && new Decimal(l.amount).gt(0));

/** What this invoice drew from each grant so far, by its credits lines. */
function drawnBefore(lines: readonly IssuedLine[]): Map<string, Decimal> {
  const drawn = new Map<string, Decimal>();
  for (const l of lines) {
    if (l.type !== 'credits' || !l.creditGrantId) continue;
    drawn.set(l.creditGrantId, (drawn.get(l.creditGrantId) ?? new Decimal(0)).minus(l.amount));
  }
  return drawn;
}

/** Whether the invoice's usage was rated with a PREPAID offering's prices. */
async function isPrepaid(deps: Deps, tenant: Tenant, invoice: Invoice): Promise<boolean> {
  if (invoice.priceVersionId === null || invoice.subscriptionId === null) return false;
  const priced = await loadPriceVersion(deps, tenant, invoice.priceVersionId);
  return priced?.offering.billingMode === 'PREPAID';
}

function burnGrant(g: CreditGrant, available: Decimal): BurnGrant {
  return {
    id: g.id,
    remaining: roundToMinorUnit(available, g.currency),
    priority: g.priority,
    effectiveAt: g.effectiveAt,
    expiresAt: g.expiresAt,
    createdAt: g.createdAt,
    subscriptionId: g.subscriptionId,
    metricNames: g.metricNames,
  };
}

/**
 * The charges of the invoice's usage lines over time: one stretch per interval between the
 * period's start, the grants' instants inside the period, and its end; each stretch's charge at
 * its start (where every grant that covers it is already effective and not yet expired).
 */
async function usageCharges(deps: Deps, tenant: Tenant, invoice: Invoice, lines: readonly IssuedLine[], grants: readonly CreditGrant[]): Promise<BurnCharge[]> {
  const { periodStart: start, periodEnd: end } = invoice;
  const cuts = [...new Set(grants.flatMap((g) => [g.effectiveAt, g.expiresAt ?? start]).filter((t) => t > start && t < end))].sort((a, b) => a - b);
  const starts = [start, ...cuts];
  const key = (l: Pick<IssuedLine, 'ratePlanId' | 'metricName'>) => `${l.ratePlanId ?? ''}\u0000${l.metricName ?? ''}`;
  // totals[line][k]: what the line rates to for usage up to the end of stretch k; the last is the invoice's own amount.
  const totals = lines.map((l) => [l.amount]);
  if (cuts.length > 0) {
    const priced = await loadPriceVersion(deps, tenant, invoice.priceVersionId!);
    const units = priced ? unitsOfOffering(priced) : [];
    const index = new Map(lines.map((l, i) => [key(l), i]));
    // A stretch with no usage leaves the totals as they were: only the cuts after some usage are
    // rated again (each a read of the usage up to it). The hours with usage say which.
    const used = await hoursWithUsage(deps.db, tenant, invoice.customerId, hourStart(start), end);
    let upTo = new Map<string, string>();
    for (const [k, cut] of cuts.entries()) {
      const from = k === 0 ? start : cuts[k - 1]!;
      const changed = k === 0 || used.some((h) => h < cut && h + HOUR > from);
      if (changed) {
        const { rating } = await ratePeriodUsage(deps, tenant, invoice, units, { start, end: cut }, invoice.allowanceFrom);
        upTo = new Map(rating.lines.filter((l) => l.type === 'usage').map((l) => [key(l), l.amount]));
      }
      for (const [key, i] of index) totals[i]!.splice(k, 0, upTo.get(key) ?? roundToMinorUnit('0', invoice.currency));
    }
  }
  const charges: BurnCharge[] = [];
  for (const [i, l] of lines.entries()) {
    const spread = chargesOverTime(
      totals[i]!.map((t) => (new Decimal(t).lt(0) ? roundToMinorUnit('0', invoice.currency) : t)),
      invoice.currency,
    );
    for (const [k, amount] of spread.entries()) {
      if (new Decimal(amount).isZero()) continue;
      charges.push({ at: starts[k]!, amount, subscriptionId: invoice.subscriptionId!, metricName: l.metricName ?? '' });
    }
  }
  return charges;
}

/** A credits line for what `grant` pays on the invoice. */
function creditsLine(invoice: Invoice, grant: CreditGrant, amount: Decimal): IssuedLine {
  const expires = grant.expiresAt === null ? '' : `, expires ${new Date(grant.expiresAt).toISOString().slice(0, 10)}`;
  return {
    ...NO_UNIT,
    type: 'credits',
    description: `Prepaid credits: ${grant.source} grant ${grant.id}${expires}`,
    amount: roundToMinorUnit(amount.negated(), invoice.currency),
    creditGrantId: grant.id,
    periodStart: invoice.periodStart,
    periodEnd: invoice.periodEnd,
    adjustsInvoiceId: null,
    ratedTotal: null,
  };
}

/**
 * The invoice's lines with its credits applied as of now, in the caller's transaction: the draws
 * (or their difference from the credits lines it has) appended to the ledger at `at`, the credits
 * lines replaced, and a discount line recomputed after them. The lines are returned unchanged for
 * an invoice that is not a PREPAID subscription's, or whose customer has never had credits in its
 * currency (no query beyond the cached price version, for them).
 */
export async function applyCredits(deps: Deps, tenant: Tenant, invoice: Invoice, lines: readonly IssuedLine[], at: number): Promise<IssuedLine[]> {
  if (!(await isPrepaid(deps, tenant, invoice))) return [...lines];
  const before = drawnBefore(lines);
  const usage = drawnLines(invoice, lines);
  if (usage.length === 0 && before.size === 0) return [...lines];
  // Held first: the grants read next are what this transaction alone draws from (PostgreSQL).
  if (!(await holdCreditBalance(deps.db, deps, tenant, invoice.customerId, invoice.currency))) return [...lines];
  const grants = (await drawableGrants(deps.db, tenant, invoice.customerId, invoice.currency, [...before.keys()])).filter(
    (g) => g.subscriptionId === null || g.subscriptionId === invoice.subscriptionId,
  );
  const available = (g: CreditGrant) => new Decimal(g.status === 'active' ? g.remaining : 0).plus(before.get(g.id) ?? 0);
  const burnable = grants.filter((g) => available(g).gt(0));
  const charges = burnable.length === 0 ? [] : await usageCharges(deps, tenant, invoice, usage, burnable);
  const burn = burnDown(
    invoice.currency,
    burnable.map((g) => burnGrant(g, available(g))),
    charges,
  );
  const drawn = new Map<string, Decimal>();
  for (const d of burn.draws) drawn.set(d.grantId, (drawn.get(d.grantId) ?? new Decimal(0)).plus(d.amount));

  const entries: NewLedgerEntry[] = [];
  const byId = new Map(grants.map((g) => [g.id, g]));
  for (const id of [...new Set([...before.keys(), ...drawn.keys()])].sort()) {
    const change = (before.get(id) ?? new Decimal(0)).minus(drawn.get(id) ?? 0);
    if (change.isZero()) continue;
    const base = { grantId: id, subscriptionId: invoice.subscriptionId, invoiceId: invoice.id, occurredAt: at };
    entries.push({ ...base, type: 'draw', amount: change.toFixed() });
    // Given back to a grant that has since expired or been voided: it goes as that grant's rest went.
    const g = byId.get(id);
    if (change.gt(0) && g && g.status !== 'active')
      entries.push({ ...base, type: g.status === 'voided' ? 'void' : 'expiry', amount: change.negated().toFixed() });
  }
  if (entries.length > 0) {
    await appendLedgerEntries(deps.db, deps, tenant, invoice.customerId, invoice.currency, entries, deps.clock.now());
    await creditsChanged(deps, deps.db);
  }

  const credits = [...drawn.entries()]
    .map(([id, amount]) => ({ grant: byId.get(id)!, amount }))
    .sort((a, b) => drawOrder(burnGrant(a.grant, a.amount), burnGrant(b.grant, b.amount)))
    .map(({ grant, amount }) => creditsLine(invoice, grant, amount));
  const others = lines.filter((l) => l.type !== 'credits');
  // After the lines they pay for and before a discount, which rediscounted recomputes from them.
  return rediscounted([...others, ...credits], invoice.currency);
}
