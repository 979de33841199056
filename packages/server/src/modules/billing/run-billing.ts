import { performance } from 'node:perf_hooks';
import type { Deps } from '../../deps.js';
import { atomically, transaction } from '../../db/transaction.js';
import type { Tenant } from '../../lib/tenant.js';
import type { BoundCredentials } from '../subscriptions/bound-credentials.js';
import { listDueSubscriptions } from '../subscriptions/subscription.repository.js';
import { finalizeInvoice } from './finalize-invoice.js';
import { listDraftsDue } from './invoice.repository.js';
import { billingOrigin, renewSubscriptions } from './renew-subscription.js';
import type { Environment } from '../../lib/crypto.js';

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

/**
 * On SQLite, drafts due are finalized in a shared transaction, each in a savepoint of it, until
 * this many have run or this long has passed: a commit is a WAL flush, which was most of the time
 * of one, and the bound keeps the usage writer thread from waiting long for the one write lock.
 * PostgreSQL keeps a transaction each: there several nodes run the job.
 */
const GROUP_MAX = 64;
const GROUP_MS = 20;

/**
 * Subscriptions of one tenant renewed in one transaction (renewSubscriptions): about 10 ms of
 * work on the development machine, so SQLite's write lock is never held long.
 */
const RENEWAL_GROUP = 48;

/** PostgreSQL renewal groups in flight at once per node: a few of the pool's 10 connections, the rest left to requests. */
const GROUPS_AT_ONCE = 3;

/**
 * Runs work for each item; work is atomic itself (a transaction, or a savepoint inside the one it
 * is given), and its failure is handed to onError. On SQLite the items share transactions of up
 * to GROUP_MAX items or GROUP_MS; if such a commit fails, every item of the group fails.
 * Resolves to the sum of what work returned for the items that were committed.
 */
async function inGroups<T>(
  deps: Deps,
  items: readonly T[],
  work: (deps: Deps, item: T) => Promise<number>,
  onError: (item: T, err: unknown) => void,
): Promise<number> {
  const one = async (d: Deps, item: T): Promise<number> => {
    try {
      return await work(d, item);
    } catch (err) {
      onError(item, err);
      return 0;
    }
  };
  let done = 0;
  if (deps.dialect !== 'sqlite') {
    for (const item of items) done += await one(deps, item);
    return done;
  }
  for (let i = 0; i < items.length;) {
    const first = i;
    try {
      done += await transaction(deps.db, async (trx) => {
        let n = 0;
        // Wall time, only to bound how long the write lock is held; what is billed never depends on it.
        const until = performance.now() + GROUP_MS;
        for (let k = 0; i < items.length && k < GROUP_MAX && (k === 0 || performance.now() < until); k++, i++) n += await one({ ...deps, db: trx }, items[i]!);
        return n;
      });
    } catch (err) {
      for (const item of items.slice(first, i)) onError(item, err);
    }
    await giveWay();
  }
  return done;
}

/**
 * better-sqlite3 answers synchronously, so the job's awaits never leave the microtask queue:
 * without this the node would serve no request (and the usage writer thread would get no turn at
 * the write lock) until the whole run is over.
 */
const giveWay = () => new Promise((resolve) => setImmediate(resolve));

/** Due subscriptions in groups of one tenant each, at most RENEWAL_GROUP long, in the order given. */
function renewalGroups(due: ReadonlyArray<{ id: string; workspaceId: string; environment: Environment }>): Array<{ tenant: Tenant; ids: string[] }> {
  const groups: Array<{ tenant: Tenant; ids: string[] }> = [];
  const open = new Map<string, { tenant: Tenant; ids: string[] }>();
  for (const s of due) {
    const key = `${s.workspaceId}:${s.environment}`;
    let g = open.get(key);
    if (!g || g.ids.length >= RENEWAL_GROUP) {
      g = { tenant: { workspaceId: s.workspaceId, environment: s.environment }, ids: [] };
      open.set(key, g);
      groups.push(g);
    }
    g.ids.push(s.id);
  }
  return groups;
}

/** Runs work for each item, `concurrency` at a time, giving way to requests between items. */
async function eachAtOnce<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      await work(items[next++]!);
      await giveWay();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
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
  const run: BillingRun = { renewals: 0, invoicesFinalized: 0, failures: 0 };
  const failed = new Set<string>();

  const skipped = new Set<string>();
  /** Drafts past their grace, oldest first, so numbers follow periods. */
  const finalizeDue = async () => {
    for (;;) {
      const drafts = (await listDraftsDue(deps.db, now, { testClock: where, limit: PAGE })).filter((d) => !skipped.has(d.id));
      if (drafts.length === 0) break;
      run.invoicesFinalized += await inGroups(
        deps,
        drafts,
        async (tx, d) => {
          skipped.add(d.id);
          const tenant = { workspaceId: d.workspaceId, environment: d.environment };
          const invoice = await atomically(tx.db, (trx) =>
            finalizeInvoice({ ...tx, db: trx }, tenant, billingOrigin(tx, tenant), d.id, now, { onlyDraft: false }),
          );
          return invoice.finalizedAt !== null ? 1 : 0;
        },
        (d, err) => {
          skipped.add(d.id);
          run.failures += 1;
          deps.log.error({ err, invoiceId: d.id, workspaceId: d.workspaceId }, 'finalizing failed; the next run tries again');
        },
      );
    }
  };

  // Drafts already due first (a first invoice), so that its number comes before the renewals'.
  await finalizeDue();
  const closedIn = new Map<string, number>();
  const renew = async (tenant: Tenant, ids: string[]): Promise<void> => {
    for (const r of await renewSubscriptions(deps, tenant, ids, now, bound)) {
      run.renewals += 1;
      if (r.invoiceFinalized) run.invoicesFinalized += 1;
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
    await eachAtOnce(renewalGroups(due), deps.dialect === 'sqlite' ? 1 : GROUPS_AT_ONCE, async (g) => {
      try {
        await renew(g.tenant, g.ids);
      } catch (err) {
        if (g.ids.length === 1) {
          failed.add(g.ids[0]!);
          run.failures += 1;
          deps.log.error({ err, subscriptionId: g.ids[0], workspaceId: g.tenant.workspaceId }, 'renewal failed; the next run tries again');
          return;
        }
        // One subscription's failure rolled back the group: one at a time, the others close.
        for (const id of g.ids) {
          try {
            await renew(g.tenant, [id]);
          } catch (one) {
            failed.add(id);
            run.failures += 1;
            deps.log.error({ err: one, subscriptionId: id, workspaceId: g.tenant.workspaceId }, 'renewal failed; the next run tries again');
          }
        }
      }
    });
    // Another node holds the rest (locked rows are skipped): its run closes them.
    if (run.renewals === before && due.every((s) => !failed.has(s.id))) break;
  }

  await finalizeDue();
  return run;
}
