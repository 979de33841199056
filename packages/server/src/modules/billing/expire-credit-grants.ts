import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordAudits } from '../audit/audit-event.repository.js';
import { presentCreditGrant, type CreditGrant } from '../credits/credit-grant.js';
import { expireGrants, grantsExpiredBy } from '../credits/credit-ledger.repository.js';
import { creditsChanged } from '../credits/live-credits.js';
import { findClockedCustomers } from '../customers/customer.repository.js';
import { emitWebhookEvents, resourceEvent } from '../outbound-webhooks/emit-webhook-events.js';
import { listSubscriptions } from '../subscriptions/subscription.repository.js';
import { listInvoices } from './invoice.repository.js';
import { pricingOf } from './rate-subscription-period.js';
import { billingOrigin } from './renew-subscription.js';

/**
 * The billing job's expiry of prepaid credits (issue 41). A grant whose `expiresAt` has passed (in
 * its customer's time) keeps what it has left until no invoice can still draw from it for usage
 * before that instant: none of the customer's PREPAID subscriptions in its currency (its own one,
 * when it is limited to one) has a period open that began before the expiry, and no draft
 * invoice of the customer's began before it. Then an `expiry` entry takes what is left, dated at
 * the expiry, the grant's status becomes expired, and credit_grant.expired / credits.expired are
 * written. Each customer's in one transaction, which finds them still active or leaves them.
 */

/** Grants looked at per page; a run pages through all that are due. */
const PAGE = 500;

/** Customers expired in one transaction. */
const GROUP = 48;

/** The most subscriptions of one customer looked at. */
const SUBSCRIPTIONS_READ = 100;

/** What may still draw from a customer's grants: its subscriptions and its draft invoices, read once. */
interface Drawers {
  /** PREPAID subscriptions not cancelled: their id, currency and current period's start. */
  prepaid: Array<{ id: string; currency: string; currentPeriodStart: number }>;
  drafts: Array<{ subscriptionId: string | null; currency: string; periodStart: number }>;
}

async function drawersOf(deps: Deps, tenant: Tenant, customerId: string, before: number): Promise<Drawers> {
  const subs = await listSubscriptions(deps.db, tenant, { customerId, limit: SUBSCRIPTIONS_READ });
  const prepaid: Drawers['prepaid'] = [];
  for (const sub of subs.items) {
    if (sub.status === 'CANCELLED') continue;
    if ((await pricingOf(deps, tenant, sub))?.offering.billingMode === 'PREPAID') prepaid.push(sub);
  }
  const drafts = await listInvoices(deps.db, tenant, { customerId, status: 'draft', periodTo: before, limit: 100 });
  return { prepaid, drafts: drafts.items };
}

/** Whether an invoice may still draw from the grant for usage before its expiry. */
function stillDrawable(d: Drawers, g: CreditGrant): boolean {
  const expiresAt = g.expiresAt!;
  const scoped = (subscriptionId: string | null) => g.subscriptionId === null || subscriptionId === g.subscriptionId;
  return (
    d.prepaid.some((s) => s.currency === g.currency && s.currentPeriodStart < expiresAt && scoped(s.id)) ||
    d.drafts.some((i) => i.currency === g.currency && i.periodStart < expiresAt && scoped(i.subscriptionId))
  );
}

/**
 * Expires every grant due at `now`: on real time, of customers on no test clock; on a test clock
 * (`where`), of its customers. Each customer's in one transaction. Returns how many were expired.
 */
export async function expireCreditGrants(deps: Deps, now: number, where: { tenant: Tenant; id: string } | null): Promise<number> {
  let expired = 0;
  let after: { expiresAt: number; id: string } | null = null;
  for (;;) {
    const page = await grantsExpiredBy(deps.db, where?.tenant ?? null, now, after, PAGE);
    if (page.length === 0) break;
    const last = page.at(-1)!.grant;
    after = { expiresAt: last.expiresAt!, id: last.id };
    const byCustomer = new Map<string, { tenant: Tenant; grants: CreditGrant[] }>();
    for (const { tenant, grant } of page) {
      const key = `${tenant.workspaceId}:${tenant.environment}:${grant.customerId}`;
      const group = byCustomer.get(key) ?? { tenant, grants: [] };
      group.grants.push(grant);
      byCustomer.set(key, group);
    }
    const clockedIn = new Map<string, Map<string, string>>();
    const work = new Map<string, { tenant: Tenant; batches: Array<{ customerId: string; currency: string; ids: string[] }> }>();
    for (const { tenant, grants } of byCustomer.values()) {
      const tenantKey = `${tenant.workspaceId}:${tenant.environment}`;
      let clocked = clockedIn.get(tenantKey);
      if (!clocked) {
        const customers = [
          ...new Set(
            [...byCustomer.values()]
              .filter((g) => g.tenant.workspaceId === tenant.workspaceId && g.tenant.environment === tenant.environment)
              .map((g) => g.grants[0]!.customerId),
          ),
        ];
        clocked = await findClockedCustomers(deps.db, tenant, customers);
        clockedIn.set(tenantKey, clocked);
      }
      const customerId = grants[0]!.customerId;
      // Real time expires only the customers on no clock; a clock's run only its own.
      if ((clocked.get(customerId) ?? null) !== (where?.id ?? null)) continue;
      const drawers = await drawersOf(deps, tenant, customerId, Math.max(...grants.map((g) => g.expiresAt!)));
      const due = grants.filter((g) => !stillDrawable(drawers, g));
      const w = work.get(tenantKey) ?? { tenant, batches: [] };
      for (const currency of new Set(due.map((g) => g.currency)))
        w.batches.push({ customerId, currency, ids: due.filter((g) => g.currency === currency).map((g) => g.id) });
      work.set(tenantKey, w);
    }
    // A tenant's customers in groups, a transaction each (a commit per customer was most of the
    // time); a group that fails is retried one customer at a time, so one bad customer fails alone.
    for (const { tenant, batches } of work.values()) {
      for (let k = 0; k < batches.length; k += GROUP) {
        const group = batches.slice(k, k + GROUP);
        try {
          expired += await expireSome(deps, tenant, group);
        } catch (err) {
          if (group.length === 1) throw err;
          for (const one of group) expired += await expireSome(deps, tenant, [one]);
        }
      }
    }
    if (page.length < PAGE) break;
  }
  return expired;
}

/** Some customers' grants (each batch one customer and currency) expired in one transaction, each audited and sent. */
async function expireSome(deps: Deps, tenant: Tenant, batches: ReadonlyArray<{ customerId: string; currency: string; ids: string[] }>): Promise<number> {
  const origin = billingOrigin(deps, tenant);
  return inTransaction(deps.db, async (trx) => {
    const done: Array<{ before: CreditGrant; grant: CreditGrant }> = [];
    for (const b of batches) done.push(...(await expireGrants(trx, deps, tenant, b.customerId, b.currency, b.ids, deps.clock.now())));
    if (done.length === 0) return 0;
    await recordAudits(
      trx,
      deps,
      done.map(({ before, grant }) => ({
        origin,
        event: {
          eventType: 'credit_grant.expired' as const,
          targetType: 'credit_grant',
          targetId: grant.id,
          payload: { customerId: grant.customerId, expired: before.remaining, currency: grant.currency },
        },
      })),
    );
    await emitWebhookEvents(
      trx,
      deps,
      done.map(({ before, grant }) => ({ origin, event: resourceEvent('credits.expired', grant.customerId, presentCreditGrant, grant, before) })),
    );
    await creditsChanged(deps, trx);
    return done.length;
  });
}
