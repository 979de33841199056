import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import type { BoundCredentials } from '../subscriptions/bound-credentials.js';
import { listDueSubscriptions } from '../subscriptions/subscription.repository.js';
import { finalizeInvoice } from './finalize-invoice.js';
import { listDraftsDue } from './invoice.repository.js';
import { billingOrigin, renewSubscription } from './renew-subscription.js';

export interface BillingRun {
  /** Periods closed (each with its invoice, when it had anything to bill). */
  renewals: number;
  invoicesFinalized: number;
  /** Subscriptions or drafts that failed (logged); the next run tries them again. */
  failures: number;
}

/** One page of due work at a time: a catch-up after downtime never loads everything at once. */
const PAGE = 500;

/** At most this many periods closed for one subscription in a run: a clock advanced two years of daily periods stays bounded. */
const MAX_PERIODS_PER_RUN = 1_000;

export interface BillingScope {
  /** A test clock's subscriptions and drafts at its time; without one, everything on real time. */
  testClock: { tenant: Tenant; id: string; time: number } | null;
  /** Called after each renewal, for progress reports. */
  onRenewal?: () => void;
}

/**
 * The billing job: closes every period that has ended (in order: a subscription three periods
 * behind gets three invoices, oldest first), then finalizes every draft whose grace period has
 * passed, oldest first, so numbers follow periods. Safe to run on several nodes at once and
 * again after a crash: a subscription is renewed under a row lock (skipped when another node
 * holds it), an invoice's cycle key is unique, and finalizing a draft twice finalizes it once.
 * One subscription's failure is logged and skipped; the rest go on.
 */
export async function runBilling(deps: Deps, bound: BoundCredentials, scope: BillingScope): Promise<BillingRun> {
  const now = scope.testClock?.time ?? deps.clock.now();
  const where = scope.testClock ? { tenant: scope.testClock.tenant, id: scope.testClock.id } : null;
  const run: BillingRun = { renewals: 0, invoicesFinalized: 0, failures: 0 };
  const failed = new Set<string>();

  for (;;) {
    const due = (await listDueSubscriptions(deps.db, now, { testClock: where, limit: PAGE })).filter((s) => !failed.has(s.id));
    if (due.length === 0) break;
    let progressed = false;
    for (const s of due) {
      const tenant = { workspaceId: s.workspaceId, environment: s.environment };
      try {
        for (let i = 0; i < MAX_PERIODS_PER_RUN; i++) {
          const r = await renewSubscription(deps, tenant, s.id, now, bound);
          if (!r) break;
          run.renewals += 1;
          progressed = true;
          scope.onRenewal?.();
        }
      } catch (err) {
        failed.add(s.id);
        run.failures += 1;
        deps.log.error({ err, subscriptionId: s.id, workspaceId: s.workspaceId }, 'renewal failed; the next run tries again');
      }
    }
    // Another node holds the rest (locked rows are skipped): its run closes them.
    if (!progressed && due.every((s) => !failed.has(s.id))) break;
  }

  const skipped = new Set<string>();
  for (;;) {
    const drafts = (await listDraftsDue(deps.db, now, { testClock: where, limit: PAGE })).filter((d) => !skipped.has(d.id));
    if (drafts.length === 0) break;
    for (const d of drafts) {
      const tenant = { workspaceId: d.workspaceId, environment: d.environment };
      try {
        const invoice = await finalizeInvoice(deps, tenant, billingOrigin(deps, tenant), d.id, now, { onlyDraft: false });
        if (invoice.finalizedAt !== null) run.invoicesFinalized += 1;
      } catch (err) {
        run.failures += 1;
        deps.log.error({ err, invoiceId: d.id, workspaceId: d.workspaceId }, 'finalizing failed; the next run tries again');
      }
      skipped.add(d.id);
    }
  }
  return run;
}
