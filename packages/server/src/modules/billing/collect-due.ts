import type { Db } from '../../db/database.js';
import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import { PaymentProviderError, type ChargeResult, type PaymentProvider } from '../payments/payment-provider.js';
import { findPaymentProvider } from '../payments/payment-provider-connection.repository.js';
import { insertPayments } from '../payments/payment.repository.js';
import { findProviderCustomers, type ProviderCustomerRow } from '../payments/provider-customer.repository.js';
import { stripeProviderOf } from '../payments/stripe-for.js';
import type { Payment } from '../payments/payment.js';
import { applyChargeOutcomes, claimAttempt, collectInvoice, sendAttempt, type Collection } from './collect-invoice.js';
import type { Invoice } from './invoice.js';
import { findInvoices, listCollectionsDue, markFirstAttemptsClaimed, unscheduleCollections } from './invoice.repository.js';
import { billingOrigin } from './renew-subscription.js';
import { tenantGroups } from './tenant-groups.js';

/**
 * The billing run's collection step: every open invoice whose next payment attempt is due (just
 * finalized, or a retry of the schedule) is charged once in the run.
 *
 * A first attempt goes in a group of its tenant's (GROUP): the group is claimed in one
 * transaction (one multi-row insert of attempts, one update of invoices), charged with at most
 * CHARGES_AT_ONCE calls in flight on the node, and its outcomes applied in one transaction. These
 * are collectInvoice's three steps (collect-invoice.ts) with its guarantees (an attempt claimed
 * under the invoice's lock before the call, the provider's idempotency key, an outcome applied
 * however often it arrives), per group instead of per invoice: one invoice at a time spent two
 * commits and about 17 statements on each (bench/README.md, issue 39). A retry (an invoice with
 * attempts already) goes alone through collectInvoice, which first withdraws any earlier attempt
 * still waiting for the buyer.
 */

/**
 * Invoices of one tenant claimed, charged and applied together. On SQLite a group's transaction
 * holds the write lock and the main thread (better-sqlite3 is synchronous): 16 outcomes take about
 * 10 to 15 ms on the development machine, as a renewal group does, and 8 while usage is being
 * written, so neither an ingestion batch nor a request waits long behind one. PostgreSQL's
 * transactions leave the thread free, and larger groups save round trips.
 */
const GROUP = { sqlite: 16, sqliteWhileIngesting: 8, postgres: 32 };
/** Groups on their way at once: one is claimed or applied while the others' charges are in flight. */
const GROUPS_AT_ONCE = 3;
/** Calls to the provider in flight at once per node: each waits on the provider, not on the database. */
export const CHARGES_AT_ONCE = 8;
/** One page of due invoices at a time. */
const PAGE = 500;

export interface CollectionTally {
  attempted: number;
  succeeded: number;
  failures: number;
}

/** A job's transaction, taken in its turn (run-billing.ts); `durable: false` may skip the disk flush on SQLite. */
export type JobTransaction = <T>(fn: (trx: Db) => Promise<T>, opts?: { durable?: boolean }) => Promise<T>;

/** At most n of the calls at once; the others wait their turn in order. */
export function callsAtOnce(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (fn) => {
    if (active < n) active += 1;
    // A finished call hands its place straight to the next, so no newcomer can slip in between.
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    }
  };
}

/** Collects every invoice due at `now` (on the test clock `where`, or on real time). */
export async function collectDue(
  deps: Deps,
  c: Collection,
  now: number,
  where: { tenant: Tenant; id: string } | null,
  transact: JobTransaction,
): Promise<CollectionTally> {
  const tally: CollectionTally = { attempted: 0, succeeded: 0, failures: 0 };
  const calls = callsAtOnce(CHARGES_AT_ONCE);
  const tried = new Set<string>();
  for (;;) {
    const due = (await listCollectionsDue(deps.db, now, { testClock: where, limit: PAGE + tried.size })).filter((d) => !tried.has(d.id));
    if (due.length === 0) break;
    for (const d of due) tried.add(d.id);
    const size = deps.dialect === 'postgres' ? GROUP.postgres : deps.writeTurns.active() ? GROUP.sqliteWhileIngesting : GROUP.sqlite;
    const groups = tenantGroups(due, size);
    let next = 0;
    const worker = async () => {
      while (next < groups.length) {
        const { tenant, ids } = groups[next++]!;
        try {
          const alone = await collectGroup(deps, c, tenant, ids, { transact, calls, tally });
          await Promise.all(alone.map((id) => calls(() => collectOne(deps, c, tenant, id, tally))));
        } catch (err) {
          tally.failures += ids.length;
          deps.log.error({ err, workspaceId: tenant.workspaceId, invoices: ids.length }, 'collecting a group of invoices failed; the next run tries again');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(GROUPS_AT_ONCE, groups.length) }, worker));
  }
  return tally;
}

async function collectOne(deps: Deps, c: Collection, tenant: Tenant, id: string, tally: CollectionTally): Promise<void> {
  try {
    const r = await collectInvoice(deps, c, tenant, id, { trigger: 'automatic', origin: billingOrigin(deps, tenant) });
    if (r.payment) tally.attempted += 1;
    if (r.payment?.status === 'succeeded') tally.succeeded += 1;
  } catch (err) {
    tally.failures += 1;
    deps.log.error({ err, invoiceId: id, workspaceId: tenant.workspaceId }, 'collecting an invoice failed; the next run tries again');
  }
}

/**
 * Claims, charges and applies a group's first attempts (see the module comment); gives back the
 * ids to collect alone (retries, and invoices another node changed meanwhile).
 */
async function collectGroup(
  deps: Deps,
  c: Collection,
  tenant: Tenant,
  ids: string[],
  job: { transact: JobTransaction; calls: <T>(fn: () => Promise<T>) => Promise<T>; tally: CollectionTally },
): Promise<string[]> {
  const connection = await findPaymentProvider(deps.db, tenant, 'stripe');
  if (!connection) {
    // Disconnected since finalization: nothing to collect with; the schedule is cleared.
    await job.transact((trx) => unscheduleCollections(trx, tenant, ids, deps.clock.now()));
    return [];
  }
  const provider = stripeProviderOf(deps, connection);
  const read = await findInvoices(deps.db, tenant, ids, null);
  const first = read.filter((i) => i.attemptCount === 0);
  const alone = read.filter((i) => i.attemptCount !== 0).map((i) => i.id);
  if (first.length === 0) return alone;

  const known = await findProviderCustomers(
    deps.db,
    tenant,
    'stripe',
    first.map((i) => i.customerId),
  );
  const methods = await paymentMethodsOf(
    provider,
    first.map((i) => i.customerId),
    known,
    job.calls,
  );

  const origin = billingOrigin(deps, tenant);
  const claimed = await job.transact(async (trx) => {
    // Read again under the locks; another node's claim (skipped, or already attempted) wins.
    const locked = await findInvoices(
      trx,
      tenant,
      first.map((i) => i.id),
      deps.dialect === 'postgres' ? 'skip-locked' : null,
    );
    const claims: Array<{ invoice: Invoice; payment: Payment }> = [];
    const closed: string[] = [];
    const now = deps.clock.now();
    for (const invoice of locked) {
      if (invoice.attemptCount !== 0) continue;
      const method = methods.get(invoice.customerId);
      if (method === undefined) continue; // the provider did not answer: the next run tries again
      const claim = claimAttempt(deps, invoice, 'automatic', method, now);
      if ('skipped' in claim) {
        if (claim.skipped !== 'in_flight') closed.push(invoice.id);
      } else claims.push(claim);
    }
    await unscheduleCollections(trx, tenant, closed, now);
    await insertPayments(
      trx,
      tenant,
      claims.map((x) => x.payment),
    );
    await markFirstAttemptsClaimed(
      trx,
      tenant,
      claims.map((x) => x.invoice),
    );
    return claims;
  });
  job.tally.attempted += claimed.length;

  const outcomes: Array<{ paymentId: string; result: ChargeResult }> = [];
  await Promise.all(
    claimed.map(({ invoice, payment }) =>
      job.calls(async () => {
        try {
          const result = await sendAttempt(deps, provider, tenant, invoice, payment, null, known.get(invoice.customerId) ?? null);
          // No answer: the attempt stays pending, and the reconciliation sends it again.
          if (result !== null) outcomes.push({ paymentId: payment.id, result });
        } catch (err) {
          job.tally.failures += 1;
          deps.log.error({ err, invoiceId: invoice.id, paymentId: payment.id }, 'charging an invoice failed; the reconciliation sends it again');
        }
      }),
    ),
  );
  // An outcome lost with a crash or a power cut leaves its attempt pending: the reconciliation
  // asks the provider again, and Stripe's webhook brings it too. So this commit need not wait for the disk.
  const applied = await applyChargeOutcomes(deps, c, tenant, outcomes, origin, (fn) => job.transact(fn, { durable: false }));
  job.tally.succeeded += applied.filter((r) => r.payment?.status === 'succeeded').length;
  return alone;
}

/**
 * The payment method each customer is charged with: the one on file, or (none seen yet) the
 * default at the provider; null for one never made at the provider (the attempt fails as
 * `no_payment_method`); absent for one the provider did not answer about.
 */
async function paymentMethodsOf(
  provider: PaymentProvider,
  customerIds: readonly string[],
  known: Map<string, ProviderCustomerRow>,
  calls: <T>(fn: () => Promise<T>) => Promise<T>,
): Promise<Map<string, string | null>> {
  const methods = new Map<string, string | null>();
  const ask: ProviderCustomerRow[] = [];
  for (const id of customerIds) {
    const k = known.get(id);
    if (!k) methods.set(id, null);
    else if (k.paymentMethod) methods.set(id, k.paymentMethod.id);
    else if (!methods.has(id) && !ask.includes(k)) ask.push(k);
  }
  await Promise.all(
    ask.map((k) =>
      calls(async () => {
        try {
          methods.set(k.customerId, (await provider.defaultPaymentMethod({ id: k.providerCustomerId }))?.id ?? null);
        } catch (err) {
          if (!(err instanceof PaymentProviderError) || err.kind !== 'unavailable') throw err;
        }
      }),
    ),
  );
  return methods;
}
