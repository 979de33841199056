import type { Deps } from '../../deps.js';
import { transaction } from '../../db/transaction.js';
import { transactionNow } from '../../db/write-turns.js';
import type { Tenant } from '../../lib/tenant.js';
import { tenantGroups, type Due } from './tenant-groups.js';
import type { BoundCredentials } from '../subscriptions/bound-credentials.js';
import { listDueSubscriptions } from '../subscriptions/subscription.repository.js';
import { finalizeInvoices } from './finalize-invoice.js';
import { listDraftsDue } from './invoice.repository.js';
import { collectDue, type JobTransaction } from './collect-due.js';
import { reconcilePayments } from './reconcile-payments.js';
import { expirePendingUpdates } from './expire-pending-updates.js';
import { expireCreditGrants } from './expire-credit-grants.js';
import { billingOrigin, renewSubscriptions } from './renew-subscription.js';

export interface BillingRun {
  /** Periods closed (each with its invoice, when it had anything to bill). */
  renewals: number;
  invoicesFinalized: number;
  /** Subscriptions or drafts that failed (logged); the next run tries them again. */
  failures: number;
  /** Payment attempts made by the collection step, and how many of them succeeded. */
  paymentsAttempted: number;
  paymentsSucceeded: number;
  /** Attempts without an outcome asked about again (real time only), and outcomes so learnt. */
  reconciled: number;
  /** Prepaid credit grants expired (what they had left entered in the ledger as expiry). */
  creditGrantsExpired: number;
}

/** One page of due work at a time: a catch-up after downtime never loads everything at once. */
const PAGE = 500;

/** At most this many periods closed for one subscription in a run: a clock advanced two years of daily periods stays bounded. */
const MAX_PERIODS_PER_RUN = 1_000;

/**
 * Subscriptions (or drafts) of one tenant handled in one transaction: about 10 ms of work on the
 * development machine, so SQLite's write lock is never held long. A transaction per renewal, a
 * dozen statements and a commit (a WAL flush) each, did about 300 a second; a group writes its
 * rows in a few multi-row statements.
 */
const GROUP = 48;

/**
 * While usage is being written, a group is written in transactions of at most this many: each
 * holds SQLite's write lock (and the main thread) a few milliseconds, so an ingestion batch never
 * waits long behind one (bench/README.md: ingestion's p99 during a renewal run).
 */
const GROUP_WHILE_INGESTING = 16;

/** PostgreSQL renewal groups in flight at once per node: a few of the pool's 10 connections, the rest left to requests. */
const GROUPS_AT_ONCE = 3;

/**
 * better-sqlite3 answers synchronously, so the job's awaits never leave the microtask queue:
 * without this the node would serve no request (and the usage writer thread would get no turn at
 * the write lock) until the whole run is over.
 */
const giveWay = () => new Promise((resolve) => setImmediate(resolve));

/** ids in consecutive chunks of at most n. */
const chunksOf = (ids: string[], n: number) => Array.from({ length: Math.ceil(ids.length / n) }, (_, k) => ids.slice(k * n, (k + 1) * n));

/**
 * Runs work on the due items in tenant groups, `concurrency` groups at a time, giving way to
 * requests between groups. Work is atomic (one transaction a group): when a group fails, its
 * items are tried one at a time, so one bad item fails alone (onFailure) and the others go on.
 */
async function inTenantGroups(
  deps: Deps,
  due: readonly Due[],
  concurrency: number,
  work: (deps: Deps, tenant: Tenant, ids: string[]) => Promise<void>,
  onFailure: (id: string, tenant: Tenant, err: unknown) => void,
): Promise<void> {
  const groups = tenantGroups(due, GROUP);
  let next = 0;
  // While usage is being written, the job's transactions run one at a time (PostgreSQL runs
  // several groups at once otherwise): they share the cores with ingestion.
  let lane: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(fn: () => Promise<T>): Promise<T> => {
    const p = lane.then(fn, fn);
    lane = p.catch(() => undefined);
    return p;
  };
  const worker = async () => {
    while (next < groups.length) {
      const { tenant, ids: all } = groups[next++]!;
      for (const ids of deps.writeTurns.active() ? chunksOf(all, GROUP_WHILE_INGESTING) : [all]) {
        // Usage writes go first: each transaction of the job waits its turn (db/write-turns.ts); on
        // SQLite it also begins only when the write lock is free, so the main thread never sleeps in
        // SQLite's busy handler. PostgreSQL: the work's own transactions.
        const transact = (some: string[]) =>
          deps.dialect === 'sqlite' ? transactionNow(deps.db, deps.sqlite, (trx) => work({ ...deps, db: trx }, tenant, some)) : work(deps, tenant, some);
        const inTurn = (some: string[]) => {
          const paced = () => deps.writeTurns.run(() => transact(some));
          return deps.writeTurns.active() ? oneAtATime(paced) : paced();
        };
        try {
          await inTurn(ids);
        } catch (err) {
          if (ids.length === 1) onFailure(ids[0]!, tenant, err);
          else {
            for (const id of ids) {
              try {
                await inTurn([id]);
              } catch (one) {
                onFailure(id, tenant, one);
              }
            }
          }
        }
      }
      await giveWay();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, groups.length) }, worker));
}

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
  const run: BillingRun = { renewals: 0, invoicesFinalized: 0, failures: 0, paymentsAttempted: 0, paymentsSucceeded: 0, reconciled: 0, creditGrantsExpired: 0 };
  // Progress as it happens (tollgate_billing_progress_total): a catch-up of many renewals shows its rate.
  const clock = scope.testClock ? 'test' : 'real';
  const progress = {
    renewals: deps.metrics.billingProgress(clock, 'renewals'),
    finalized: deps.metrics.billingProgress(clock, 'invoices_finalized'),
    failures: deps.metrics.billingProgress(clock, 'failures'),
  };
  deps.metrics.billingProgress(clock, 'runs').inc();
  const failed = new Set<string>();

  const skipped = new Set<string>();
  /**
   * Drafts past their grace, oldest first, so numbers follow periods: one group at a time (also on
   * PostgreSQL), each group numbered in order from one range.
   */
  const finalizeDue = async () => {
    const done = new Set<string>();
    for (;;) {
      const drafts = (await listDraftsDue(deps.db, now, { testClock: where, limit: PAGE + skipped.size })).filter((d) => !skipped.has(d.id));
      if (drafts.length === 0) break;
      await inTenantGroups(
        deps,
        drafts,
        1,
        async (d, tenant, ids) => {
          const { finalized } = await finalizeInvoices(d, tenant, billingOrigin(deps, tenant), ids, now, { onlyDraft: false, skipLocked: true });
          run.invoicesFinalized += finalized.length;
          progress.finalized.inc(finalized.length);
          for (const i of finalized) done.add(i.id);
        },
        (id, tenant, err) => {
          run.failures += 1;
          progress.failures.inc();
          deps.log.error({ err, invoiceId: id, workspaceId: tenant.workspaceId }, 'finalizing failed; the next run tries again');
        },
      );
      // Failed, or held by another node (which finalizes it): not listed again in this run.
      for (const d of drafts) if (!done.has(d.id)) skipped.add(d.id);
    }
  };

  // Drafts already due first (a first invoice), so that its number comes before the renewals'.
  await finalizeDue();
  const closedIn = new Map<string, number>();
  const renew = async (d: Deps, tenant: Tenant, ids: string[]): Promise<void> => {
    for (const r of await renewSubscriptions(d, tenant, ids, now, bound)) {
      run.renewals += 1;
      progress.renewals.inc();
      if (r.invoiceFinalized) {
        run.invoicesFinalized += 1;
        progress.finalized.inc();
      }
      const n = (closedIn.get(r.subscriptionId) ?? 0) + 1;
      closedIn.set(r.subscriptionId, n);
      if (n >= MAX_PERIODS_PER_RUN) failed.add(r.subscriptionId);
      scope.onRenewal?.();
    }
  };
  for (;;) {
    const due = (await listDueSubscriptions(deps.db, now, { testClock: where, limit: PAGE + failed.size })).filter((s) => !failed.has(s.id));
    if (due.length === 0) break;
    const before = run.renewals;
    // Each group closes one period of each of its subscriptions; those still behind come back in
    // the next page, so periods close oldest first. Different groups renew independently (rows
    // locked, the invoice sequence's row taken last and held only to the commit, so no wait can
    // form a cycle): on PostgreSQL a few at once hide the round trips.
    await inTenantGroups(deps, due, deps.dialect === 'sqlite' ? 1 : GROUPS_AT_ONCE, renew, (id, tenant, err) => {
      failed.add(id);
      run.failures += 1;
      progress.failures.inc();
      deps.log.error({ err, subscriptionId: id, workspaceId: tenant.workspaceId }, 'renewal failed; the next run tries again');
    });
    // Another node holds the rest (locked rows are skipped): its run closes them.
    if (run.renewals === before && due.every((s) => !failed.has(s.id))) break;
  }

  await finalizeDue();
  await expirePendingUpdates(deps, now, where);
  // After finalization: a grant expires once the invoices that could draw from it are final.
  run.creditGrantsExpired = await expireCreditGrants(deps, now, where);
  const collected = await collectDue(deps, { bound }, now, where, jobTransaction(deps));
  run.paymentsAttempted += collected.attempted;
  run.paymentsSucceeded += collected.succeeded;
  run.failures += collected.failures;
  if (!scope.testClock) run.reconciled = (await reconcilePayments(deps, { bound })).settled;
  return run;
}

/**
 * A transaction of the job in its turn (db/write-turns.ts): on SQLite it waits while usage is
 * being written and begins only when the write lock is free; PostgreSQL's is a plain one.
 */
function jobTransaction(deps: Deps): JobTransaction {
  return (fn, opts) => (deps.dialect === 'sqlite' ? deps.writeTurns.run(() => transactionNow(deps.db, deps.sqlite, fn, opts)) : transaction(deps.db, fn));
}
