import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { requireCustomerByRef } from '../customers/customer-refs.js';
import { findMetricNames } from '../metrics/metric.repository.js';
import { emitWebhookEvent, resourceEvent } from '../outbound-webhooks/emit-webhook-events.js';
import { findSubscription, listSubscriptions } from '../subscriptions/subscription.repository.js';
import { timeOf } from '../test-clocks/clock-time.js';
import { checkNewGrant, presentCreditGrant, type CreateCreditGrantInput, type CreditGrant, type NewGrant } from './credit-grant.js';
import { activatePendingGrants, insertGrant, voidGrant, voidPendingGrants } from './credit-ledger.repository.js';
import type { CreditInvoicing } from './credit-invoicing.js';
import { rearmTopUp } from './credit-settings.repository.js';
import { creditsChanged } from './live-credits.js';

/** The most subscriptions of one customer whose currencies a grant is checked against. */
const SUBSCRIPTIONS_READ = 100;

/**
 * The currencies a customer's credits may be in: those its subscriptions (not cancelled) bill
 * in. Empty when it has none: then a grant may be in any currency, and its subscriptions-to-be
 * decide later which grants they can draw.
 */
async function customerCurrencies(deps: Deps, ctx: OperationContext, customerId: string): Promise<Set<string>> {
  const page = await listSubscriptions(deps.db, ctx, { customerId, limit: SUBSCRIPTIONS_READ });
  return new Set(page.items.filter((s) => s.status !== 'CANCELLED').map((s) => s.currency));
}

/**
 * Grants credits to a customer (an operator's promotional or adjustment grant): checked, stored
 * active and entered in the ledger, audited as credit_grant.created and sent as credits.granted.
 * Every refusal names its field.
 */
export async function createCreditGrant(
  deps: Deps,
  ctx: OperationContext,
  input: CreateCreditGrantInput,
  invoicing: CreditInvoicing | null,
): Promise<CreditGrant> {
  const customer = await requireCustomerByRef(deps.db, ctx, input.customerId, 'body.customerId');
  // The customer's time: a test clock's when it lives on one, so that a grant made on a clock
  // is effective and expires in the clock's time.
  const now = await timeOf(deps, ctx, customer.testClockId);
  const effectiveAt = input.effectiveAt === undefined ? now : Date.parse(input.effectiveAt);
  const expiresAt = input.expiresAt === undefined || input.expiresAt === null ? null : Date.parse(input.expiresAt);
  if (expiresAt !== null && expiresAt <= now)
    throw new AppError('VALIDATION_FAILED', 'expiresAt must be in the future: a grant that has expired pays for nothing.', { field: 'body.expiresAt' });

  let subscriptionId: string | null = null;
  if (input.subscriptionId !== undefined) {
    const sub = await findSubscription(deps.db, ctx, input.subscriptionId);
    if (!sub || sub.customerId !== customer.id)
      throw new AppError('NOT_FOUND', `Customer '${customer.id}' has no subscription '${input.subscriptionId}'.`, { field: 'body.subscriptionId' });
    if (sub.currency !== input.currency)
      throw new AppError('VALIDATION_FAILED', `currency must be ${sub.currency}, the currency subscription '${sub.id}' bills in.`, { field: 'body.currency' });
    subscriptionId = sub.id;
  } else {
    const currencies = await customerCurrencies(deps, ctx, customer.id);
    if (currencies.size > 0 && !currencies.has(input.currency))
      throw new AppError(
        'VALIDATION_FAILED',
        `currency must be one the customer's subscriptions bill in (${[...currencies].sort().join(', ')}): credits in ${input.currency} could pay for nothing.`,
        { field: 'body.currency' },
      );
  }
  if (input.metricNames !== undefined) {
    const known = await findMetricNames(deps.db, ctx, input.metricNames);
    const i = input.metricNames.findIndex((name) => !known.has(name));
    if (i >= 0)
      throw new AppError('VALIDATION_FAILED', `No metric named '${input.metricNames[i]}' exists in this environment.`, { field: `body.metricNames.${i}` });
  }
  const source = input.source ?? 'promotional';
  const purchased = source === 'purchased';
  const grant = checkNewGrant({
    customerId: customer.id,
    currency: input.currency,
    amount: input.amount,
    priority: input.priority ?? 50,
    effectiveAt,
    expiresAt,
    source,
    status: purchased ? 'pending' : 'active',
    subscriptionId,
    metricNames: input.metricNames === undefined ? null : [...new Set(input.metricNames)],
    costAmount: input.cost ?? (purchased ? input.amount : null),
    invoiceId: null,
    metadata: input.metadata ?? {},
  });
  if (!purchased) return inTransaction(deps.db, (trx) => recordGrant({ ...deps, db: trx }, ctx, grant, now));
  if (invoicing === null) throw new Error('a purchase of credits needs billing (CreditInvoicing)');
  return inTransaction(deps.db, (trx) => purchaseCredits({ ...deps, db: trx }, ctx, customer.testClockId, grant, invoicing, now));
}

/**
 * A purchase, in the caller's transaction (`deps.db`): the invoice for the grant's cost (billing,
 * through `invoicing`), then the grant, pending until that invoice is paid; active at once when it
 * is paid already (the customer's balance, or a cost of 0). An operator's or an automatic top-up.
 */
export async function purchaseCredits(
  deps: Deps,
  ctx: OperationContext,
  testClockId: string | null,
  grant: NewGrant,
  invoicing: CreditInvoicing,
  now: number,
): Promise<CreditGrant> {
  const id = deps.ids.next('creditGrant');
  const invoice = await invoicing.invoicePurchase(deps, ctx, {
    grantId: id,
    customerId: grant.customerId,
    subscriptionId: grant.subscriptionId,
    testClockId,
    currency: grant.currency,
    amount: grant.amount,
    cost: grant.costAmount ?? grant.amount,
    at: now,
  });
  const pending = await recordGrant(deps, ctx, { ...grant, id, status: 'pending', invoiceId: invoice.invoiceId }, now);
  if (invoice.paid) return (await activatePurchasedGrants(deps, ctx, invoice.invoiceId, now))[0] ?? pending;
  return pending;
}

/** Metadata an automatic top-up's grant carries: paid or voided, the top-up may fire again. */
export const AUTO_TOP_UP = { key: 'tollgate.autoTopUp', value: 'true' } as const;
const isAutoTopUp = (g: CreditGrant) => g.metadata[AUTO_TOP_UP.key] === AUTO_TOP_UP.value;

/**
 * The invoice of a purchase was paid (at `at`, its customer's time), in the caller's transaction:
 * its pending grants become active, effective from then at the earliest, entered in the ledger as
 * top_up, audited as credit_grant.topped_up and sent as credits.topped_up. Billing calls this
 * for every invoice it marks paid; for other invoices it finds nothing.
 */
export async function activatePurchasedGrants(deps: Deps, origin: OperationContext, invoiceId: string, at: number): Promise<CreditGrant[]> {
  const done: CreditGrant[] = [];
  for (const { before, grant } of await activatePendingGrants(deps.db, deps, origin, invoiceId, at, deps.clock.now())) {
    await recordAudit(deps.db, deps, origin, {
      eventType: 'credit_grant.topped_up',
      targetType: 'credit_grant',
      targetId: grant.id,
      payload: { customerId: grant.customerId, amount: grant.amount, currency: grant.currency, cost: grant.costAmount, invoiceId },
    });
    await emitWebhookEvent(deps.db, deps, origin, resourceEvent('credits.topped_up', grant.customerId, presentCreditGrant, grant, before));
    if (isAutoTopUp(grant)) await rearmTopUp(deps.db, origin, grant.customerId, grant.currency, deps.clock.now());
    done.push(grant);
  }
  if (done.length > 0) await creditsChanged(deps, deps.db);
  return done;
}

/** The invoice of a purchase was voided: its pending grants are voided too, never having counted. */
export async function voidPurchasedGrants(deps: Deps, origin: OperationContext, invoiceId: string): Promise<void> {
  for (const { before, grant } of await voidPendingGrants(deps.db, deps, origin, invoiceId, deps.clock.now())) {
    await recordAudit(deps.db, deps, origin, {
      eventType: 'credit_grant.voided',
      targetType: 'credit_grant',
      targetId: grant.id,
      payload: { customerId: grant.customerId, voided: '0', currency: grant.currency, invoiceId },
    });
    await emitWebhookEvent(deps.db, deps, origin, resourceEvent('credits.voided', grant.customerId, presentCreditGrant, grant, before));
    if (isAutoTopUp(grant)) await rearmTopUp(deps.db, origin, grant.customerId, grant.currency, deps.clock.now());
  }
}

/**
 * Stores a checked grant in the caller's transaction (`deps.db`), its ledger entry when it is
 * active, audited as credit_grant.created and sent as credits.granted: an operator's grant, and
 * the service's recurring and rollover grants (modules/billing). `now` is the customer's time.
 */
export async function recordGrant(deps: Deps, origin: OperationContext, grant: NewGrant, now: number): Promise<CreditGrant> {
  const trx = deps.db;
  const { grant: stored } = await insertGrant(trx, deps, origin, grant, now);
  await recordAudit(trx, deps, origin, {
    eventType: 'credit_grant.created',
    targetType: 'credit_grant',
    targetId: stored.id,
    payload: { customerId: stored.customerId, amount: stored.amount, currency: stored.currency, source: stored.source, priority: stored.priority },
  });
  // A customer's credit events keep their order for an endpoint: one ordering key per customer.
  await emitWebhookEvent(trx, deps, origin, resourceEvent('credits.granted', stored.customerId, presentCreditGrant, stored));
  await creditsChanged(deps, trx);
  return stored;
}

/** Voids what is left of a grant (what was drawn stays drawn), audited as credit_grant.voided and sent as credits.voided. */
export async function voidCreditGrant(deps: Deps, ctx: OperationContext, id: string): Promise<CreditGrant> {
  return inTransaction(deps.db, async (trx) => {
    const { before, grant, entry } = await voidGrant(trx, deps, ctx, id, deps.clock.now());
    await recordAudit(trx, deps, ctx, {
      eventType: 'credit_grant.voided',
      targetType: 'credit_grant',
      targetId: grant.id,
      payload: { customerId: grant.customerId, voided: entry.amount.replace(/^-/, ''), currency: grant.currency },
    });
    await emitWebhookEvent(trx, deps, ctx, resourceEvent('credits.voided', grant.customerId, presentCreditGrant, grant, before));
    await creditsChanged(deps, trx);
    return grant;
  });
}
