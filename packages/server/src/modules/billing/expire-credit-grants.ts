import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { presentCreditGrant, type CreditGrant } from '../credits/credit-grant.js';
import { expireGrant, grantsExpiredBy } from '../credits/credit-ledger.repository.js';
import { creditsChanged } from '../credits/live-credits.js';
import { findClockedCustomers } from '../customers/customer.repository.js';
import { emitWebhookEvent, resourceEvent } from '../outbound-webhooks/emit-webhook-events.js';
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
 * written. Each grant in its own transaction, which finds it still active or leaves it.
 */

/** Grants looked at per page; a run pages through all that are due. */
const PAGE = 500;

/** The most subscriptions of one customer looked at. */
const SUBSCRIPTIONS_READ = 100;

/** Whether an invoice may still draw from the grant for usage before its expiry. */
async function stillDrawable(deps: Deps, tenant: Tenant, g: CreditGrant): Promise<boolean> {
  const expiresAt = g.expiresAt!;
  const subs = await listSubscriptions(deps.db, tenant, { customerId: g.customerId, limit: SUBSCRIPTIONS_READ });
  for (const sub of subs.items) {
    if (sub.status === 'CANCELLED' || sub.currency !== g.currency || sub.currentPeriodStart >= expiresAt) continue;
    if (g.subscriptionId !== null && sub.id !== g.subscriptionId) continue;
    if ((await pricingOf(deps, tenant, sub))?.offering.billingMode === 'PREPAID') return true;
  }
  const drafts = await listInvoices(deps.db, tenant, { customerId: g.customerId, status: 'draft', periodTo: expiresAt, limit: 100 });
  return drafts.items.some((i) => i.currency === g.currency && (g.subscriptionId === null || i.subscriptionId === g.subscriptionId));
}

/**
 * Expires every grant due at `now`: on real time, of customers on no test clock; on a test clock
 * (`where`), of its customers. Returns how many were expired.
 */
export async function expireCreditGrants(deps: Deps, now: number, where: { tenant: Tenant; id: string } | null): Promise<number> {
  let expired = 0;
  let after: { expiresAt: number; id: string } | null = null;
  for (;;) {
    const page = await grantsExpiredBy(deps.db, where?.tenant ?? null, now, after, PAGE);
    if (page.length === 0) break;
    const last = page.at(-1)!.grant;
    after = { expiresAt: last.expiresAt!, id: last.id };
    const byTenant = new Map<string, { tenant: Tenant; grants: CreditGrant[] }>();
    for (const { tenant, grant } of page) {
      const key = `${tenant.workspaceId}:${tenant.environment}`;
      const group = byTenant.get(key) ?? { tenant, grants: [] };
      group.grants.push(grant);
      byTenant.set(key, group);
    }
    for (const { tenant, grants } of byTenant.values()) {
      const clocked = await findClockedCustomers(deps.db, tenant, [...new Set(grants.map((g) => g.customerId))]);
      for (const g of grants) {
        // Real time expires only the customers on no clock; a clock's run only its own.
        if ((clocked.get(g.customerId) ?? null) !== (where?.id ?? null)) continue;
        if (await stillDrawable(deps, tenant, g)) continue;
        if (await expireOne(deps, tenant, g.id)) expired += 1;
      }
    }
    if (page.length < PAGE) break;
  }
  return expired;
}

async function expireOne(deps: Deps, tenant: Tenant, id: string): Promise<boolean> {
  const origin = billingOrigin(deps, tenant);
  return inTransaction(deps.db, async (trx) => {
    const done = await expireGrant(trx, deps, tenant, id, deps.clock.now());
    if (!done) return false;
    const { before, grant, entry } = done;
    await recordAudit(trx, deps, origin, {
      eventType: 'credit_grant.expired',
      targetType: 'credit_grant',
      targetId: grant.id,
      payload: { customerId: grant.customerId, expired: entry ? entry.amount.replace(/^-/, '') : before.remaining, currency: grant.currency },
    });
    await emitWebhookEvent(trx, deps, origin, resourceEvent('credits.expired', grant.customerId, presentCreditGrant, grant, before));
    await creditsChanged(deps, trx);
    return true;
  });
}
