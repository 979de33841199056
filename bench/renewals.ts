// Renewals (issue 16): 100,000 subscriptions across 1,000 customers on one test clock, each
// customer with usage in the period (three metrics, four hours, two of them at the period's edges),
// renewed in one run of the billing job: one advance of the clock past one period and its grace,
// through POST /api/v1/test_clocks/{id}/advance on a bench server, so every draft is also finalized.
// Ceiling from the same run: the pure rating (ratePeriod) of the same 100,000 subscriptions with the
// same units and the same usage groups, in this process. Then ingestion's p99 (1,000-event batches,
// 8 clients) alone and while a second advance (the next period) runs in the server.
// Run: npm run bench:renewals                     the embedded default (SQLite file)
//      BENCH_DATABASE_URL=postgres://… npm run bench:renewals   a scratch database on that server
// BENCH_CUSTOMERS (1000), BENCH_SUBSCRIPTIONS_PER_CUSTOMER (100), BENCH_INGEST=0 skips the second
// phase, BENCH_TWO_STEPS=1 renews to drafts first and finalizes them in a second advance,
// BENCH_INGEST_SECONDS (10) the ingestion-alone phases, BENCH_INGEST_RATE (batches/s) the open
// loop's rate (half the closed loop's alone by default), against a third advance. 127.0.0.1 only; stops by itself.
import { addMonthsClamped } from '../packages/pricing/src/periods.js';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { PricedOffering } from '../packages/server/src/modules/catalog/load-priced-offering.js';
import { metricsRatedByDimension, unitsOfOffering, usageGroupsOf } from '../packages/server/src/modules/billing/priced-units.js';
import { ratePeriod } from '../packages/server/src/modules/billing/rate-period.js';
import { BATCH, batchBodies, closedLoop, openLoop, percentile, scratchPostgres, startBenchServer, type LoadResult } from './lib.js';
import { GRACE, HOUR, T0, cloneTemplate, postgresStore, readTemplate, request, sqliteStore, writeUsage, type Store } from './subscriptions-fixture.js';

const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? 1000);
const PER_CUSTOMER = Number(process.env.BENCH_SUBSCRIPTIONS_PER_CUSTOMER ?? 100);
const INGEST = process.env.BENCH_INGEST !== '0';
const TWO_STEPS = process.env.BENCH_TWO_STEPS === '1';
const OPEN_RATE = process.env.BENCH_INGEST_RATE ? Number(process.env.BENCH_INGEST_RATE) : null;
const INGEST_SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 10);
/** Every subscription carries a retention discount (issue 17): each renewal invoice gets a discount line. */
const DISCOUNT = process.env.BENCH_DISCOUNT === '1';
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function main() {
  const adminUrl = process.env.BENCH_DATABASE_URL;
  const scratch = adminUrl ? await scratchPostgres(adminUrl) : null;
  const backend = scratch ? 'PostgreSQL' : 'SQLite';
  const server = await startBenchServer(scratch ? { DATABASE_URL: scratch.url } : {});
  const out = { push: (line: string) => console.log(line) };
  let store: Store | null = null;
  let failed: boolean;
  try {
    const { url, secretKey, customerId: demoCustomerId, workspaceId, databaseFile } = server.info;
    const auth = `Bearer ${secretKey}`;
    store = scratch ? await postgresStore(scratch.url) : sqliteStore(databaseFile!);
    const s = store;
    const tenant = [workspaceId, 'test'];
    out.push(
      `\nRenewals, ${backend}: ${fmt(CUSTOMERS)} customers x ${fmt(PER_CUSTOMER)} subscriptions on one test clock${DISCOUNT ? ' (each with a retention discount)' : ''}; load average at start ${load()}`,
    );

    // --- Setup: one customer and subscription through the API, the rest cloned from their rows.
    const t0 = performance.now();
    const demoSub = (await request(`${url}/api/v1/subscriptions?customerId=${demoCustomerId}`, 'GET', auth)).json as { data: Array<{ offeringId: string }> };
    const offeringId = demoSub.data[0]!.offeringId;
    const clock = (await request(`${url}/api/v1/test_clocks`, 'POST', auth, { frozenTime: new Date(T0).toISOString(), name: 'bench renewals' })).json as {
      id: string;
    };
    const first = (await request(`${url}/api/v1/customers`, 'POST', auth, { externalId: 'renewals-0', testClockId: clock.id })).json as { id: string };
    const firstSub = (await request(`${url}/api/v1/subscriptions`, 'POST', auth, { customerId: first.id, offeringId })).json as { id: string };
    // The template's discount is cloned with it: every subscription renews with one.
    if (DISCOUNT) await request(`${url}/api/v1/subscriptions/${firstSub.id}/retention-offer`, 'POST', auth, { reason: 'TOO_EXPENSIVE' });
    // Past the grace period: the first invoice (the entry price) is finalized and numbered, as it would be.
    await request(`${url}/api/v1/test_clocks/${clock.id}/advance`, 'POST', auth, { frozenTime: new Date(T0 + 2 * HOUR).toISOString() });

    const template = await readTemplate(s, tenant, first.id, firstSub.id);
    const subRow = template.subscription;
    const periodStart = Number(subRow.current_period_start);
    const end1 = Number(subRow.current_period_end);
    const end2 = addMonthsClamped(end1, 1);
    const end3 = addMonthsClamped(end1, 2);
    const clockId = clock.id;

    const customerIds = await cloneTemplate(s, tenant, template, {
      subscriptions: CUSTOMERS * PER_CUSTOMER,
      perCustomer: PER_CUSTOMER,
      externalIdPrefix: 'renewals-',
    });
    // Usage in both periods; the first period's is also rated in process below (the ceiling).
    const written = await writeUsage(s, workspaceId, customerIds, [
      [periodStart, end1],
      [end1, end2],
    ]);
    const usageOf = written.usage[0]!;
    await s.analyze();
    const setupSeconds = (performance.now() - t0) / 1000;
    const total = CUSTOMERS * PER_CUSTOMER;
    out.push(
      `setup ${setupSeconds.toFixed(1)} s: ${fmt(total)} subscriptions, ${fmt(written.events)} events (${fmt(written.hourly)} hourly, ${fmt(written.monthly)} monthly rows); ` +
        `period ${new Date(periodStart).toISOString()} to ${new Date(end1).toISOString()}`,
    );

    // --- Ceiling: the pure rating of the same subscriptions' usage with the same units.
    const [pv] = await s.all<{ content: string }>(`select content from price_versions where id = ?`, [subRow.price_version_id]);
    const units = unitsOfOffering(JSON.parse(pv!.content) as PricedOffering);
    const byDimension = metricsRatedByDimension(units);
    const groups = usageOf.map((u) => usageGroupsOf(u, byDimension));
    const r0 = performance.now();
    let check = 0;
    for (let c = 0; c < CUSTOMERS; c++) {
      for (let k = 0; k < PER_CUSTOMER; k++) {
        const rating = ratePeriod({ currency: String(subRow.currency), entryPrice: null, inTrial: false, units, usage: groups[c]! });
        check += rating.lines.length;
      }
    }
    const ceilingSeconds = (performance.now() - r0) / 1000;
    const ceiling = total / ceilingSeconds;

    // --- The job: one advance past the period's end and its grace.
    const advance = async (to: number) => {
      const a0 = performance.now();
      await request(`${url}/api/v1/test_clocks/${clockId}/advance`, 'POST', auth, { frozenTime: new Date(to).toISOString() });
      return (performance.now() - a0) / 1000;
    };
    const counts = async (boundary: number) => {
      const [r] = await s.all<{ n: number | string; subs: number | string; finalized: number | string }>(
        `select count(*) as n, count(distinct subscription_id) as subs, sum(case when status = 'finalized' then 1 else 0 end) as finalized
         from invoices where workspace_id = ? and environment = ? and test_clock_id = ? and cycle_key = ?`,
        [...tenant, clockId, `cycle:${boundary}`],
      );
      return { issued: Number(r!.n), subs: Number(r!.subs), finalized: Number(r!.finalized) };
    };
    const loadBefore = load();
    // BENCH_TWO_STEPS=1: first to the period's end exactly (drafts, rated), then past the grace
    // (the drafts rated again and finalized), each timed: the real-time job's two runs.
    let draftSeconds: number | null = null;
    if (TWO_STEPS) {
      draftSeconds = await advance(end1);
      out.push(`two steps: ${fmt((await counts(end1)).issued)} drafts issued in ${draftSeconds.toFixed(1)} s at the period's end`);
    }
    const jobSeconds = await advance(end1 + GRACE + 60_000);
    const c1 = await counts(end1);
    if (draftSeconds !== null) out.push(`two steps: ${fmt(c1.finalized)} finalized in ${jobSeconds.toFixed(1)} s after the grace`);
    out.push(`load average before the job ${loadBefore}, after ${load()}`);
    out.push('| backend | subscriptions | invoices issued | finalized | job s | invoices/s | ceiling: ratePeriod in process, invoices/s | ratio |');
    out.push('|---|---|---|---|---|---|---|---|');
    out.push(
      `| ${backend} | ${fmt(total)} | ${fmt(c1.issued)} | ${fmt(c1.finalized)} | ${jobSeconds.toFixed(1)} | ${fmt(c1.issued / jobSeconds)} | ${fmt(ceiling)} (${ceilingSeconds.toFixed(2)} s, ${check} lines) | ${(c1.issued / jobSeconds / ceiling).toFixed(3)} |`,
    );

    // --- Ingestion alone, then while the next period's advance runs in the server.
    let c2: Awaited<ReturnType<typeof counts>> | null = null;
    let failedThird: string | null = null;
    if (INGEST) {
      const bodies = batchBodies(server.info.customerIds, 16);
      const ingest = (seconds: number, until?: () => boolean) =>
        closedLoop({
          connections: 8,
          seconds,
          until,
          request: (i) => ({
            url: `${url}/v1/ingest/batch`,
            init: { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: bodies[i % bodies.length] },
          }),
        });
      await ingest(2); // warm-up
      const alone = await ingest(INGEST_SECONDS);
      let done = false;
      const job = advance(end2 + GRACE + 60_000).finally(() => (done = true));
      const during = await ingest(600, () => done);
      const jobSeconds2 = await job;
      c2 = await counts(end2);
      const line = (label: string, r: LoadResult) =>
        `| ${label} | ${r.seconds.toFixed(1)} | ${fmt((r.ok * BATCH) / r.seconds)} | ${percentile(r.latenciesOk, 50).toFixed(1)} | ${percentile(r.latenciesOk, 99).toFixed(1)} | ${r.refused} | ${r.other} |`;
      out.push(`\nIngestion, 8 clients, 1,000-event batches (load average after ${load()})`);
      out.push('| phase | s | events/s | p50 ms | p99 ms | 503s | other |');
      out.push('|---|---|---|---|---|---|---|');
      out.push(line('alone', alone));
      out.push(line(`during the job (${fmt(c2.issued)} invoices in ${jobSeconds2.toFixed(1)} s: ${fmt(c2.issued / jobSeconds2)}/s)`, during));
      out.push(`p99 during / alone: ${(percentile(during.latenciesOk, 99) / percentile(alone.latenciesOk, 99)).toFixed(2)} (target at most 1.2)`);

      // The same at a fixed offered load (an open loop): half what the closed loop reached alone,
      // unless BENCH_INGEST_RATE (batches/s) says. A saturating closed loop turns any other work
      // into queueing; this is the latency a gateway sending at a steady rate sees.
      const rate = OPEN_RATE ?? Math.max(1, Math.round(alone.ok / alone.seconds / 2));
      const steady = (seconds: number, until?: () => boolean) =>
        openLoop({
          perSecond: rate,
          seconds,
          until,
          request: (i) => ({
            url: `${url}/v1/ingest/batch`,
            init: { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: bodies[i % bodies.length] },
          }),
        });
      const steadyAlone = await steady(INGEST_SECONDS);
      let done3 = false;
      const job3 = advance(end3 + GRACE + 60_000).finally(() => (done3 = true));
      const steadyDuring = await steady(600, () => done3);
      const jobSeconds3 = await job3;
      const c3 = await counts(end3);
      out.push(`\nIngestion at a fixed rate, ${fmt(rate)} batches/s (${fmt(rate * BATCH)} events/s offered; load average after ${load()})`);
      out.push('| phase | s | events/s | p50 ms | p99 ms | 503s | other |');
      out.push('|---|---|---|---|---|---|---|');
      out.push(line('alone', steadyAlone));
      out.push(line(`during the job (${fmt(c3.issued)} invoices in ${jobSeconds3.toFixed(1)} s: ${fmt(c3.issued / jobSeconds3)}/s)`, steadyDuring));
      out.push(`p99 during / alone: ${(percentile(steadyDuring.latenciesOk, 99) / percentile(steadyAlone.latenciesOk, 99)).toFixed(2)} (target at most 1.2)`);
      if (c3.issued !== total) failedThird = `third period: ${c3.issued} cycle invoices for ${total} subscriptions`;
    }

    // --- Checks: one cycle invoice per subscription and period, finalized; numbers gapless.
    const problems: string[] = [];
    for (const [label, c] of [
      ['first period', c1],
      ['second period', c2],
    ] as const) {
      if (c && (c.issued !== total || c.subs !== total || c.finalized !== total)) problems.push(`${label}: ${JSON.stringify(c)} for ${total} subscriptions`);
    }
    const numbers = (await s.all<{ number: string }>(`select number from invoices where workspace_id = ? and environment = ? and number is not null`, tenant))
      .map((r) => Number(/(\d+)$/.exec(r.number)![1]))
      .sort((a, b) => a - b);
    const gaps = numbers.filter((n, i) => n !== i + 1).length;
    if (gaps > 0) problems.push(`invoice numbers: ${gaps} out of place among ${numbers.length} (first ${numbers[0]}, last ${numbers.at(-1)})`);
    const [behind] = await s.all<{ n: number | string }>(`select count(*) as n from subscriptions where test_clock_id = ? and current_period_end <= ?`, [
      clockId,
      INGEST ? end3 : end1,
    ]);
    if (Number(behind!.n) !== 0) problems.push(`${behind!.n} subscriptions still due`);
    if (failedThird) problems.push(failedThird);
    if (DISCOUNT) {
      // The first renewal of each subscription carries its discount line, counted down on the row.
      const [d] = await s.all<{ n: number | string }>(
        `select count(*) as n from invoices where workspace_id = ? and environment = ? and billing_reason = 'subscription_cycle' and lines like '%"type":"discount"%'`,
        tenant,
      );
      if (Number(d!.n) < total) problems.push(`${d!.n} cycle invoices with a discount line for ${total} subscriptions`);
    }
    out.push(
      problems.length === 0
        ? `checked: every subscription has one finalized cycle invoice per period; ${fmt(numbers.length)} invoice numbers, gapless`
        : `FAILED: ${problems.join('; ')}`,
    );
    failed = problems.length > 0;
  } finally {
    await store?.close();
    await server.stop();
    server.cleanup();
    await scratch?.drop();
  }

  if (failed) process.exitCode = 1;
}

await main();
