// Prepaid credits (issue 41): the burn-down's ceiling. 1,000 customers with 100 grants each
// (priorities, expiries and effective instants spread over the month, some limited to a
// subscription or a metric) and a month of hourly charges each (720), burned down by the pure
// function of @tollgate/pricing (burn-down.ts) in this process: customers settled per second, and
// the conservation check (every charge paid or uncovered to the minor unit).
// Then the service's own period close on a bench server (SQLite, or PostgreSQL with
// BENCH_DATABASE_URL): 1,000 customers on one test clock, each with a PREPAID subscription (the
// demo's Pro prices), a month of usage and 100 grants, closed by one advance of the clock past
// the period and its grace: customers settled per second (renewal, draws, finalization, expiries),
// beside the pure burn-down of the same grants and the same money at the usage's instants in
// this process. Then a ledger of 1,000,000 entries: the p99 of GET …/credit_ledger pages.
// Run: npm run bench:credits   (a few minutes; BENCH_SETTLE=0: the pure part only; 127.0.0.1
//      only; stops by itself)
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { burnDown, Decimal, type BurnCharge, type BurnGrant } from '../packages/pricing/src/index.js';
import { metricsRatedByDimension, unitsOfOffering, usageGroupsOf } from '../packages/server/src/modules/billing/priced-units.js';
import { ratePeriod } from '../packages/server/src/modules/billing/rate-period.js';
import type { PricedOffering } from '../packages/server/src/modules/catalog/load-priced-offering.js';
import { createIdGenerator } from '../packages/server/src/lib/ids.js';
import { percentile, prng, scratchPostgres, startBenchServer } from './lib.js';
import {
  GRACE,
  HOUR as FIXTURE_HOUR,
  T0 as FIXTURE_T0,
  cloneTemplate,
  postgresStore,
  readTemplate,
  request,
  sqliteStore,
  writeUsage,
  type Row,
  type Store,
} from './subscriptions-fixture.js';

const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? 1000);
const GRANTS = Number(process.env.BENCH_GRANTS ?? 100);
const HOURS = 720;
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 11, 1);

/** Decimal text with two decimals as whole cents, exactly (no floating point). */
const toCents = (text: string) => Number(new Decimal(text).times(100).toFixed(0));
const cents = (n: number) => `${Math.floor(n / 100)}.${String(n % 100).padStart(2, '0')}`;

export function makeCustomer(index: number): { grants: BurnGrant[]; charges: BurnCharge[] } {
  const r = prng(index + 1);
  const grants: BurnGrant[] = Array.from({ length: GRANTS }, (_, i) => {
    const effectiveAt = T0 + Math.floor(r() * HOURS * 0.8) * HOUR;
    return {
      id: `cgr_${index}_${i}`,
      remaining: cents(100 + Math.floor(r() * 5_000)),
      priority: Math.floor(r() * 4),
      effectiveAt,
      expiresAt: r() < 0.5 ? null : effectiveAt + (1 + Math.floor(r() * HOURS)) * HOUR,
      createdAt: effectiveAt - Math.floor(r() * 10) * HOUR,
      subscriptionId: r() < 0.1 ? 'sub_2' : null,
      metricNames: r() < 0.1 ? ['tokens'] : null,
    };
  });
  const charges: BurnCharge[] = Array.from({ length: HOURS }, (_, h) => ({
    at: T0 + h * HOUR + Math.floor(r() * HOUR),
    amount: cents(Math.floor(r() * 2_000)),
    subscriptionId: r() < 0.8 ? 'sub_1' : 'sub_2',
    metricName: r() < 0.5 ? 'tokens' : 'calls',
  }));
  return { grants, charges };
}

/** Burns every customer down once; returns customers per second and the check's result. */
export function measureBurnDown(customers = CUSTOMERS) {
  const data = Array.from({ length: customers }, (_, i) => makeCustomer(i));
  const t0 = performance.now();
  const results = data.map(({ grants, charges }) => burnDown('USD', grants, charges));
  const seconds = (performance.now() - t0) / 1000;
  // Conservation, in whole cents: what was drawn and what is uncovered is what was charged.
  let problems = 0;
  data.forEach(({ charges }, i) => {
    const charged = charges.reduce((s, c) => s + BigInt(c.amount.replace('.', '')), 0n);
    if (BigInt(results[i]!.drawn.replace('.', '')) + BigInt(results[i]!.overage.replace('.', '')) !== charged) problems++;
  });
  return { customers, grants: GRANTS, charges: HOURS, seconds, perSecond: customers / seconds, problems };
}

const LEDGER_ENTRIES = Number(process.env.BENCH_LEDGER_ENTRIES ?? 1_000_000);
const PAGES = 300;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** A customer's grants for the settle phase, around its period [start, end): as makeCustomer's, but in the period's time. */
function settleGrants(index: number, start: number, end: number): Array<Omit<BurnGrant, 'id'>> {
  const r = prng(10_000 + index);
  const span = end - start;
  return Array.from({ length: GRANTS }, () => {
    const effectiveAt = start - 5 * 86_400_000 + Math.floor(r() * (span * 0.8));
    // A third expire inside the period, a third after it, a third never.
    const roll = r();
    const expiresAt = roll < 1 / 3 ? effectiveAt + Math.max(FIXTURE_HOUR, Math.floor(r() * span * 0.5)) : roll < 2 / 3 ? end + Math.floor(r() * span) : null;
    return {
      remaining: cents(10 + Math.floor(r() * 300)),
      priority: Math.floor(r() * 4),
      effectiveAt,
      expiresAt,
      createdAt: effectiveAt,
      subscriptionId: null,
      metricNames: null,
    };
  });
}

/** The period close of CUSTOMERS PREPAID subscriptions with GRANTS grants each, and the ledger's page latency. */
async function measureSettle() {
  const adminUrl = process.env.BENCH_DATABASE_URL;
  const scratch = adminUrl ? await scratchPostgres(adminUrl) : null;
  const backend = scratch ? 'PostgreSQL' : 'SQLite';
  const server = await startBenchServer(scratch ? { DATABASE_URL: scratch.url } : {});
  let store: Store | null = null;
  try {
    const { url, secretKey, customerId: demoCustomerId, workspaceId, databaseFile } = server.info;
    const auth = `Bearer ${secretKey}`;
    store = scratch ? await postgresStore(scratch.url) : sqliteStore(databaseFile!);
    const s = store;
    const tenant = [workspaceId, 'test'];
    const t0 = performance.now();
    // A PREPAID copy of the demo's Pro offering (its three priced metrics and entry price).
    const demoSub = (await request(`${url}/api/v1/subscriptions?customerId=${demoCustomerId}`, 'GET', auth)).json as { data: Array<{ offeringId: string }> };
    const pro = (await request(`${url}/api/v1/offerings/${demoSub.data[0]!.offeringId}`, 'GET', auth)).json;
    const prepaid = (
      await request(`${url}/api/v1/offerings`, 'POST', auth, {
        productId: pro.productId,
        name: 'Pro prepaid',
        currency: pro.currency,
        billingPeriod: pro.billingPeriod,
        entryPrice: pro.entryPrice,
        ratePlanIds: pro.ratePlanIds,
        billingMode: 'PREPAID',
      })
    ).json as { id: string };
    const clock = (await request(`${url}/api/v1/test_clocks`, 'POST', auth, { frozenTime: new Date(FIXTURE_T0).toISOString(), name: 'bench credits' }))
      .json as { id: string };
    const first = (await request(`${url}/api/v1/customers`, 'POST', auth, { externalId: 'credits-0', testClockId: clock.id })).json as { id: string };
    const firstSub = (await request(`${url}/api/v1/subscriptions`, 'POST', auth, { customerId: first.id, offeringId: prepaid.id })).json as { id: string };
    await request(`${url}/api/v1/test_clocks/${clock.id}/advance`, 'POST', auth, { frozenTime: new Date(FIXTURE_T0 + 2 * FIXTURE_HOUR).toISOString() });
    const template = await readTemplate(s, tenant, first.id, firstSub.id);
    const start = Number(template.subscription.current_period_start);
    const end = Number(template.subscription.current_period_end);
    const customerIds = await cloneTemplate(s, tenant, template, { subscriptions: CUSTOMERS, perCustomer: 1, externalIdPrefix: 'credits-' });
    const written = await writeUsage(s, workspaceId, customerIds, [[start, end]]);

    // The grants, each entered in the ledger (a grant entry with the balance after it), and each customer's balance row.
    const ids = createIdGenerator({ now: () => start - 6 * 86_400_000 });
    const grantRows: Row[] = [];
    const entryRows: Row[] = [];
    const balanceRows: Row[] = [];
    const burnData: Array<{ grants: BurnGrant[] }> = [];
    for (const [c, customerId] of customerIds.entries()) {
      let balance = 0;
      const grants: BurnGrant[] = [];
      for (const g of settleGrants(c, start, end)) {
        const id = ids.next('creditGrant');
        grants.push({ ...g, id });
        balance += toCents(g.remaining);
        const key = { workspace_id: workspaceId, environment: 'test', customer_id: customerId, currency: 'USD' };
        grantRows.push({
          id,
          ...key,
          amount: g.remaining,
          remaining: g.remaining,
          priority: g.priority,
          effective_at: g.effectiveAt,
          expires_at: g.expiresAt,
          source: 'promotional',
          status: 'active',
          subscription_id: null,
          metric_names: null,
          cost_amount: null,
          invoice_id: null,
          metadata: '{}',
          voided_at: null,
          created_at: g.createdAt,
          updated_at: g.createdAt,
        });
        entryRows.push({
          id: ids.next('creditLedgerEntry'),
          ...key,
          grant_id: id,
          type: 'grant',
          amount: g.remaining,
          balance_after: cents(balance),
          subscription_id: null,
          invoice_id: null,
          occurred_at: g.createdAt,
          created_at: g.createdAt,
        });
      }
      balanceRows.push({
        workspace_id: workspaceId,
        environment: 'test',
        customer_id: customerId,
        currency: 'USD',
        balance: cents(balance),
        updated_at: start,
      });
      burnData.push({ grants });
    }
    await s.insert('credit_grants', grantRows);
    await s.insert('credit_ledger_entries', entryRows);
    await s.insert('credit_balances', balanceRows);
    await s.analyze();
    console.log(
      `\nSettling a period, ${backend}: ${fmt(CUSTOMERS)} PREPAID subscriptions x ${GRANTS} grants, ${fmt(written.events)} usage events; setup ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    // The ceiling: the same grants burnt down, in this process, by the same money (each customer's
    // usage lines as rated) at the usage's instants (its four event hours; each line's amount split over them).
    const [pv] = await s.all<{ content: string }>(`select content from price_versions where id = ?`, [template.subscription.price_version_id]);
    const units = unitsOfOffering(JSON.parse(pv!.content) as PricedOffering);
    const byDimension = metricsRatedByDimension(units);
    const instants = [start + 10 * 60_000, start + 3 * 86_400_000, start + 12 * 86_400_000, end - 20 * 60_000];
    const charges = written.usage[0]!.map((u, c) => {
      const rating = ratePeriod({ currency: 'USD', entryPrice: null, inTrial: false, units, usage: usageGroupsOf(u, byDimension) });
      return rating.lines
        .filter((l) => l.type === 'usage')
        .flatMap((l) => {
          const total = toCents(l.amount);
          return instants.map((at, k) => ({
            at,
            amount: cents(Math.floor(total / 4) + (k === 3 ? total % 4 : 0)),
            subscriptionId: c === 0 ? firstSub.id : 'sub',
            metricName: l.metricName!,
          }));
        });
    });
    const c0 = performance.now();
    let drawnCents = 0;
    for (const [c, { grants }] of burnData.entries()) drawnCents += toCents(burnDown('USD', grants, charges[c]!).drawn);
    const ceilingSeconds = (performance.now() - c0) / 1000;

    // The job: one advance past the period's end and its grace (renewal, draws, finalization, expiries).
    const a0 = performance.now();
    const advanced = await request(`${url}/api/v1/test_clocks/${clock.id}/advance`, 'POST', auth, { frozenTime: new Date(end + GRACE + 60_000).toISOString() });
    const jobSeconds = (performance.now() - a0) / 1000;
    if (advanced.status !== 200) throw new Error(`advance failed: ${advanced.status} ${JSON.stringify(advanced.json).slice(0, 300)}`);
    const [draws] = await s.all<{ n: number | string; customers: number | string }>(
      `select count(*) as n, count(distinct customer_id) as customers from credit_ledger_entries where workspace_id = ? and type = 'draw'`,
      [workspaceId],
    );
    // The invariant on a sample: each balance is the sum of its ledger.
    let mismatches = 0;
    for (const customerId of customerIds.slice(0, 50)) {
      const entries = await s.all<{ amount: string }>(`select amount from credit_ledger_entries where customer_id = ?`, [customerId]);
      const [b] = await s.all<{ balance: string }>(`select balance from credit_balances where customer_id = ?`, [customerId]);
      const sum = entries.reduce((acc, e) => acc + toCents(e.amount), 0);
      if (cents(Math.max(sum, 0)) !== b!.balance || sum < 0) mismatches++;
    }
    console.log(
      '| backend | customers | job s | customers settled/s | ceiling: burnDown in process, customers/s | ratio | draw entries | customers drawn | ledger ≠ balance (of 50) |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    console.log(
      `| ${backend} | ${fmt(CUSTOMERS)} | ${jobSeconds.toFixed(1)} | ${fmt(CUSTOMERS / jobSeconds)} | ${fmt(CUSTOMERS / ceilingSeconds)} | ${(ceilingSeconds / jobSeconds).toFixed(3)} | ${fmt(Number(draws!.n))} | ${fmt(Number(draws!.customers))} | ${mismatches} |`,
    );
    console.log(`(the ceiling drew ${cents(drawnCents)} USD in all)`);
    if (mismatches > 0) process.exitCode = 1;

    // A ledger of LEDGER_ENTRIES entries for one customer, paged newest first by cursor.
    const heavy = customerIds[1]!;
    const ledgerIds: string[] = [];
    const gen = createIdGenerator({ now: () => start });
    const l0 = performance.now();
    for (let k = 0; k < LEDGER_ENTRIES; k += 20_000) {
      const rows: Row[] = [];
      for (let j = k; j < Math.min(LEDGER_ENTRIES, k + 20_000); j++) {
        const id = gen.next('creditLedgerEntry');
        ledgerIds.push(id);
        rows.push({
          id,
          workspace_id: workspaceId,
          environment: 'test',
          customer_id: heavy,
          currency: 'EUR',
          grant_id: 'cgr_bench',
          type: j % 2 ? 'draw' : 'grant',
          amount: j % 2 ? '-1.00' : '1.00',
          balance_after: j % 2 ? '0.00' : '1.00',
          subscription_id: null,
          invoice_id: null,
          occurred_at: start,
          created_at: start,
        });
      }
      await s.insert('credit_ledger_entries', rows);
    }
    await s.analyze();
    const fillSeconds = (performance.now() - l0) / 1000;
    const r = prng(7);
    const times: number[] = [];
    for (let i = 0; i < PAGES; i++) {
      const after = i % 10 === 0 ? '' : `&startingAfter=${ledgerIds[Math.floor(r() * ledgerIds.length)]}`;
      const q0 = performance.now();
      const page = await request(`${url}/api/v1/customers/${heavy}/credit_ledger?currency=EUR&limit=100${after}`, 'GET', auth);
      times.push(performance.now() - q0);
      if (page.status !== 200) throw new Error(`ledger page: ${page.status}`);
    }
    times.sort((x, y) => x - y);
    console.log(
      `\nLedger pages, ${backend}: ${fmt(LEDGER_ENTRIES)} entries for one customer (written in ${fillSeconds.toFixed(1)} s), ${PAGES} pages of 100 at random cursors`,
    );
    console.log('| backend | entries | p50 ms | p99 ms | max ms | target p99 |');
    console.log('|---|---|---|---|---|---|');
    console.log(
      `| ${backend} | ${fmt(LEDGER_ENTRIES)} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} | ${times.at(-1)!.toFixed(1)} | ≤ 50 |`,
    );
  } finally {
    await store?.close();
    await server.stop();
    server.cleanup();
    await scratch?.drop();
  }
}

async function main() {
  measureBurnDown(50); // warm-up
  const r = measureBurnDown();
  console.log(
    `\nPrepaid credits: the burn-down's ceiling (pure, one thread), ${r.customers.toLocaleString('en-US')} customers × ${r.grants} grants × ${r.charges} hourly charges`,
  );
  console.log('| customers | seconds | customers/s | conservation problems |');
  console.log('|---|---|---|---|');
  console.log(`| ${r.customers.toLocaleString('en-US')} | ${r.seconds.toFixed(2)} | ${Math.round(r.perSecond).toLocaleString('en-US')} | ${r.problems} |`);
  if (r.problems > 0) process.exitCode = 1;
  if (process.env.BENCH_SETTLE !== '0') await measureSettle();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
