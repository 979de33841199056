// Collection (issue 39): N subscriptions (default 100,000: 1,000 customers x 100, as in
// renewals.ts) on one test clock, every customer with a card at the Stripe fake
// (packages/server/src/demo/stripe-fake.ts, an HTTP server in this process; the bench server's
// STRIPE_API_BASE points the real `stripe` client at it). Two renewal runs, each one advance of the
// clock past a period and its grace through POST /api/v1/test_clocks/{id}/advance: the first with
// no Stripe connection (collection off), the second with Stripe connected (collection on: every
// renewal invoice is finalized, then charged by the billing run's collection step, 8 at a time).
// Figures: renewals/s off and on and the ratio of their times; invoices collected per second from
// the first charge to the last (the fake's PaymentIntents counted every 10 ms) against the fake's
// own ceiling in the same run: bare PaymentIntent create+confirm calls (the adapter's request, the
// official client, 8 in flight) from a worker thread against the same fake. Then the entitlement
// check (autocannon, 50 connections) of past-due subscriptions against an active one: within the
// grace period (its card declined in the run: still served) and past it (a second clock advanced
// past the day-3 retry: PAYMENT_PAST_DUE), with the answer cache on and off (the server restarted
// on the same data).
// Checks (exit 1 otherwise): every invoice charged has exactly one succeeded PaymentIntent at the
// fake and one payment row, every other invoice none; the past-due subscription is PAST_DUE.
// Run: node --import tsx bench/collection.ts [--n 2000]        SQLite, then PostgreSQL
// PostgreSQL runs on a scratch database of BENCH_DATABASE_URL (or TEST_DATABASE_URL); skipped, saying
// why, when neither is set or reachable. BENCH_BACKENDS=sqlite|postgres|sqlite,postgres,
// BENCH_N (or --n), BENCH_SUBSCRIPTIONS_PER_CUSTOMER (100), BENCH_CEILING_SECONDS (10),
// BENCH_CHECK_SECONDS (4), BENCH_CHECKS=0 skips the entitlement phase, BENCH_MAX_SECONDS (3600)
// bounds the whole run. 127.0.0.1 only; stops by itself.
import { addMonthsClamped } from '../packages/pricing/src/periods.js';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';
import pg from 'pg';
import { FAKE_STRIPE_SECRET_KEY, FAKE_STRIPE_WEBHOOK_SECRET, StripeFake, type TestCard } from '../packages/server/test/helpers/stripe-fake.js';
import { cpuSecondsOf, scratchPostgres, startBenchServer, tsWorker, type BenchServer } from './lib.js';
import { DAY, GRACE, HOUR, T0, cloneTemplate, postgresStore, readTemplate, request, sqliteStore, writeUsage, type Store } from './subscriptions-fixture.js';

const argN = (() => {
  const i = process.argv.findIndex((a) => a === '--n' || a.startsWith('--n='));
  if (i < 0) return null;
  const a = process.argv[i]!;
  return Number(a.includes('=') ? a.slice(a.indexOf('=') + 1) : process.argv[i + 1]);
})();
const N = argN ?? Number(process.env.BENCH_N ?? 100_000);
const PER_CUSTOMER = Number(process.env.BENCH_SUBSCRIPTIONS_PER_CUSTOMER ?? 100);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'sqlite,postgres').split(',');
const CEILING_SECONDS = Number(process.env.BENCH_CEILING_SECONDS ?? 10);
const CHECK_SECONDS = Number(process.env.BENCH_CHECK_SECONDS ?? 4);
const CHECKS = process.env.BENCH_CHECKS !== '0';
const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 3600);
/** The collection step's attempts in flight (run-billing.ts: COLLECTIONS_AT_ONCE); the ceiling uses as many. */
const CONCURRENCY = 8;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

// --- The ceiling, in a worker thread: bare PaymentIntent calls against the fake ---------------------

interface CeilingJob {
  apiBase: string;
  /** [Stripe customer, payment method] pairs, used in turn. */
  pairs: Array<[string, string]>;
  seconds: number;
  concurrency: number;
}
interface CeilingPhase {
  calls: number;
  failures: number;
  seconds: number;
}

/**
 * What the adapter sends for a charge (stripe-provider.ts: charge), with the same client options,
 * `concurrency` at a time for `seconds`: once through one client, then (half as long) through a
 * new client per call, as the server makes one per collected invoice (stripe-for.ts).
 */
async function ceiling(job: CeilingJob): Promise<{ shared: CeilingPhase; fresh: CeilingPhase }> {
  const { default: Stripe } = await import('stripe');
  const u = new URL(job.apiBase);
  const client = () =>
    new Stripe(FAKE_STRIPE_SECRET_KEY, {
      maxNetworkRetries: 0,
      timeout: 10_000,
      telemetry: false,
      appInfo: { name: 'Tollgate' },
      host: u.hostname,
      port: Number(u.port),
      protocol: 'http',
    });
  let n = 0;
  const phase = async (seconds: number, clientFor: () => InstanceType<typeof Stripe>): Promise<CeilingPhase> => {
    const r: CeilingPhase = { calls: 0, failures: 0, seconds };
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    await Promise.all(
      Array.from({ length: job.concurrency }, async () => {
        while (performance.now() < end) {
          const i = n++;
          const [customer, paymentMethod] = job.pairs[i % job.pairs.length]!;
          try {
            const pi = await clientFor().paymentIntents.create(
              {
                amount: 12_345,
                currency: 'usd',
                customer,
                payment_method: paymentMethod,
                confirm: true,
                off_session: true,
                description: `Invoice ceiling-${i}`,
                metadata: { bench: 'ceiling', attemptId: `pay_ceiling_${i}`, workspaceId: 'ws_ceiling', environment: 'test' },
              },
              { idempotencyKey: `bench-ceiling-${i}` },
            );
            if (pi.status === 'succeeded') r.calls += 1;
            else r.failures += 1;
          } catch {
            r.failures += 1;
          }
        }
      }),
    );
    r.seconds = (performance.now() - t0) / 1000;
    return r;
  };
  const one = client();
  await phase(1, () => one); // warm-up
  const shared = await phase(job.seconds, () => one);
  const fresh = await phase(Math.max(1, job.seconds / 2), client);
  return { shared, fresh };
}

/**
 * The fake keeps every request and event for tests' assertions; nothing here reads them, and at
 * 100,000 charges they would hold gigabytes. Its PaymentIntents (what the checks read) stay.
 */
function trimFake(fake: StripeFake): void {
  fake.requests.length = 0;
  fake.events.length = 0;
  (fake as unknown as { pending: unknown[] }).pending.length = 0;
}

/** A customer at the fake, with a default card, through its API (as our adapter makes them). */
async function fakeCustomer(fake: StripeFake, name: string, card: TestCard): Promise<[string, string]> {
  const res = await fetch(`${fake.apiBase}/v1/customers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${FAKE_STRIPE_SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ name, 'metadata[bench]': 'collection' }).toString(),
  });
  const customer = (await res.json()) as { id: string };
  return [customer.id, fake.attachCard(customer.id, card)];
}

async function autocannonRun(url: string, headers: Record<string, string>) {
  const r = await autocannon({ url, connections: 50, duration: CHECK_SECONDS, headers });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
}

interface Outcome {
  lines: string[];
  failed: boolean;
}

async function runBackend(backend: 'SQLite' | 'PostgreSQL', adminUrl: string | null, onServer: (s: BenchServer | null) => void): Promise<Outcome> {
  const lines: string[] = [];
  const out = (line: string) => {
    lines.push(line);
    console.log(line);
  };
  const fake = await StripeFake.start();
  const scratch = adminUrl ? await scratchPostgres(adminUrl) : null;
  const baseEnv: Record<string, string> = { STRIPE_API_BASE: fake.apiBase, ...(scratch ? { DATABASE_URL: scratch.url } : {}) };
  let server = await startBenchServer(baseEnv);
  onServer(server);
  let store: Store | null = null;
  const problems: string[] = [];
  try {
    const { url, secretKey, workspaceId, databaseFile, productId } = server.info;
    const auth = `Bearer ${secretKey}`;
    store = scratch ? await postgresStore(scratch.url) : sqliteStore(databaseFile!);
    const s = store;
    const tenant = [workspaceId, 'test'];
    const customers = Math.max(1, Math.ceil((N - 2) / PER_CUSTOMER));
    out(
      `\nCollection, ${backend}: ${fmt(N)} subscriptions (${fmt(customers)} customers with up to ${PER_CUSTOMER} each, and 2 for the entitlement check) on one test clock; load average at start ${load()}`,
    );

    // --- Setup: a template customer and subscription through the API, the rest cloned from their rows (as renewals.ts).
    const t0 = performance.now();
    const demoSub = (await request(`${url}/api/v1/subscriptions?customerId=${server.info.customerId}`, 'GET', auth)).json as {
      data: Array<{ offeringId: string }>;
    };
    const offeringId = demoSub.data[0]!.offeringId;
    const clock = (await request(`${url}/api/v1/test_clocks`, 'POST', auth, { frozenTime: new Date(T0).toISOString(), name: 'bench collection' })).json as {
      id: string;
    };
    const clockId = clock.id;
    const made: Array<{ customerId: string; subscriptionId: string }> = [];
    for (const name of ['collection-0', 'entitlement-active', 'entitlement-past-due']) {
      const customer = (await request(`${url}/api/v1/customers`, 'POST', auth, { externalId: name, testClockId: clockId })).json as { id: string };
      const sub = (await request(`${url}/api/v1/subscriptions`, 'POST', auth, { customerId: customer.id, offeringId })).json as { id: string };
      made.push({ customerId: customer.id, subscriptionId: sub.id });
    }
    const [template, active, pastDue] = made as [(typeof made)[0], (typeof made)[0], (typeof made)[0]];
    // Past the grace period: the first invoices are finalized and numbered (no Stripe yet: not collected).
    await request(`${url}/api/v1/test_clocks/${clockId}/advance`, 'POST', auth, { frozenTime: new Date(T0 + 2 * HOUR).toISOString() });

    const templateRows = await readTemplate(s, tenant, template.customerId, template.subscriptionId);
    if (templateRows.invoice.collection_method !== 'charge_automatically')
      throw new Error(`the template invoice is collected by ${String(templateRows.invoice.collection_method)}`);
    const periodStart = Number(templateRows.subscription.current_period_start);
    const end1 = Number(templateRows.subscription.current_period_end);
    const end2 = addMonthsClamped(end1, 1);

    // The entitlement check's two subscriptions are among the N: the clones are the rest.
    const customerIds = await cloneTemplate(s, tenant, templateRows, { subscriptions: N - 2, perCustomer: PER_CUSTOMER, externalIdPrefix: 'collection-' });
    // Usage in both periods, so the renewals rate as in renewals.ts.
    const written = await writeUsage(s, workspaceId, customerIds, [
      [periodStart, end1],
      [end1, end2],
    ]);

    // Cards: a customer at the fake for each of ours, with a default card, kept as a completed
    // setup session leaves it (provider_customers, the card's summary on the row).
    const cards: Array<{ customerId: string; card: TestCard }> = [
      ...customerIds.map((customerId) => ({ customerId, card: 'pm_card_visa' as const })),
      { customerId: active.customerId, card: 'pm_card_visa' },
      { customerId: pastDue.customerId, card: 'pm_card_chargeDeclined' },
    ];
    const pairs = new Array<[string, string]>(cards.length);
    let nextCard = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (nextCard < cards.length) {
          const i = nextCard++;
          pairs[i] = await fakeCustomer(fake, `bench ${cards[i]!.customerId}`, cards[i]!.card);
        }
      }),
    );
    const now = Date.now();
    await s.insert(
      'provider_customers',
      cards.map(({ customerId, card }, i) => ({
        workspace_id: workspaceId,
        environment: 'test',
        provider: 'stripe',
        customer_id: customerId,
        provider_customer_id: pairs[i]![0],
        payment_method: JSON.stringify({ id: pairs[i]![1], brand: 'visa', last4: card === 'pm_card_visa' ? '4242' : '0002', expMonth: 12, expYear: 2034 }),
        updated_at: now,
      })),
    );
    await s.analyze();
    trimFake(fake);
    out(
      `setup ${((performance.now() - t0) / 1000).toFixed(1)} s: ${fmt(N)} subscriptions, ${fmt(written.events)} events, ${fmt(cards.length)} customers with a card at the fake; ` +
        `period ${new Date(periodStart).toISOString()} to ${new Date(end1).toISOString()}`,
    );

    const advance = async (to: number) => {
      const a0 = performance.now();
      await request(`${url}/api/v1/test_clocks/${clockId}/advance`, 'POST', auth, { frozenTime: new Date(to).toISOString() });
      return (performance.now() - a0) / 1000;
    };
    const counts = async (boundary: number) => {
      const [r] = await s.all<{ n: number | string; finalized: number | string; paid: number | string }>(
        `select count(*) as n, sum(case when status = 'finalized' then 1 else 0 end) as finalized, sum(case when status = 'paid' then 1 else 0 end) as paid
         from invoices where workspace_id = ? and environment = ? and test_clock_id = ? and cycle_key = ?`,
        [...tenant, clockId, `cycle:${boundary}`],
      );
      return { issued: Number(r!.n), finalized: Number(r!.finalized), paid: Number(r!.paid) };
    };
    const serverCpu = () => cpuSecondsOf(server.child.pid!) ?? NaN;
    const benchCpu = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6;
    };

    // --- Collection off: no Stripe connection. One period renewed and finalized.
    const loadOff = load();
    const cpuOff = [serverCpu(), benchCpu()];
    const offSeconds = await advance(end1 + GRACE + 60_000);
    const cpuOffUsed = [serverCpu() - cpuOff[0]!, benchCpu() - cpuOff[1]!];
    const c1 = await counts(end1);
    if (c1.issued !== N || c1.finalized !== N) problems.push(`collection off: ${JSON.stringify(c1)} for ${N} subscriptions`);
    if (fake.paymentIntents.size !== 0) problems.push(`collection off: ${fake.paymentIntents.size} PaymentIntents at the fake`);

    // --- Collection on: Stripe connected; the next period renewed, finalized and charged.
    await request(`${url}/api/v1/payment_providers/stripe`, 'PUT', auth, { secretKey: FAKE_STRIPE_SECRET_KEY, webhookSecret: FAKE_STRIPE_WEBHOOK_SECRET });
    let firstCharge: number | null = null;
    let lastCharge: number | null = null;
    let seen = 0;
    const a0 = performance.now();
    const poll = setInterval(() => {
      const size = fake.paymentIntents.size;
      if (size !== seen) {
        const t = performance.now();
        if (firstCharge === null) firstCharge = t;
        lastCharge = t;
        seen = size;
      }
      trimFake(fake);
    }, 10);
    const loadOn = load();
    const cpuOn = [serverCpu(), benchCpu()];
    const onSeconds = await advance(end2 + GRACE + 60_000);
    const cpuOnUsed = [serverCpu() - cpuOn[0]!, benchCpu() - cpuOn[1]!];
    clearInterval(poll);
    const c2 = await counts(end2);
    const charges = fake.paymentIntents.size;
    const untilFirst = ((firstCharge ?? a0) - a0) / 1000;
    const collectSeconds = ((lastCharge ?? a0) - (firstCharge ?? a0)) / 1000;
    const afterLast = onSeconds - ((lastCharge ?? a0) - a0) / 1000;

    // --- The ceiling: bare PaymentIntent calls against the same fake, 8 in flight, from a worker thread.
    const job: CeilingJob = { apiBase: fake.apiBase, pairs: pairs.slice(0, -1), seconds: CEILING_SECONDS, concurrency: CONCURRENCY };
    const poll2 = setInterval(() => trimFake(fake), 100);
    const ceil = await new Promise<{ shared: CeilingPhase; fresh: CeilingPhase }>((resolve, reject) => {
      const w = tsWorker(import.meta.url, job);
      w.once('message', resolve);
      w.once('error', reject);
    });
    clearInterval(poll2);
    const ceilingRate = ceil.shared.calls / ceil.shared.seconds;
    const freshRate = ceil.fresh.calls / ceil.fresh.seconds;

    // --- Checks: one succeeded PaymentIntent per invoice charged, none for any other.
    const byInvoice = new Map<string, number>();
    let ceilingIntents = 0;
    for (const pi of fake.paymentIntents.values()) {
      const meta = pi.metadata as Record<string, string>;
      if (meta.bench === 'ceiling') {
        ceilingIntents += 1;
        continue;
      }
      if (pi.status === 'succeeded') byInvoice.set(meta.invoiceId!, (byInvoice.get(meta.invoiceId!) ?? 0) + 1);
    }
    const paidInvoices = await s.all<{ id: string; subscription_id: string }>(
      `select id, subscription_id from invoices where workspace_id = ? and environment = ? and test_clock_id = ? and status = 'paid'`,
      [...tenant, clockId],
    );
    const paidIds = new Set(paidInvoices.map((r) => r.id));
    let exactlyOne = 0;
    let none = 0;
    let more = 0;
    for (const id of paidIds) {
      const k = byInvoice.get(id) ?? 0;
      if (k === 1) exactlyOne += 1;
      else if (k === 0) none += 1;
      else more += 1;
    }
    const strays = [...byInvoice.keys()].filter((id) => !paidIds.has(id)).length;
    const [payRows] = await s.all<{ n: number | string; invoices: number | string; succeeded: number | string }>(
      `select count(*) as n, count(distinct invoice_id) as invoices, sum(case when status = 'succeeded' then 1 else 0 end) as succeeded from payments where workspace_id = ? and environment = ?`,
      tenant,
    );
    const [pd] = await s.all<{ status: string; past_due_access_until: number | string | null }>(
      `select status, past_due_access_until from subscriptions where id = ?`,
      [pastDue.subscriptionId],
    );
    if (c2.issued !== N || c2.paid !== N - 1 || c2.finalized !== 1)
      problems.push(`collection on: ${JSON.stringify(c2)} for ${N} subscriptions (all paid but one)`);
    if (exactlyOne !== N - 1 || paidIds.size !== N - 1)
      problems.push(`${exactlyOne} of ${paidIds.size} paid invoices with exactly one succeeded PaymentIntent (${N - 1} expected)`);
    if (none + more + strays > 0)
      problems.push(`paid invoices with no PaymentIntent ${none}, with more than one ${more}; PaymentIntents of invoices not paid ${strays}`);
    if (Number(payRows!.n) !== N || Number(payRows!.invoices) !== N || Number(payRows!.succeeded) !== N - 1)
      problems.push(`payments: ${JSON.stringify(payRows)} (${N} attempts, one per invoice, ${N - 1} succeeded expected)`);
    if (pd?.status !== 'PAST_DUE') problems.push(`the declined subscription is ${pd?.status}, not PAST_DUE`);
    if (charges !== N) problems.push(`${charges} PaymentIntents at the fake during collection, ${N} expected`);

    out(`load average before the runs: off ${loadOff}, on ${loadOn}; after ${load()}`);
    out('| backend | subscriptions | collection | job s | renewals/s | server CPU s | bench (fake) CPU s | time on / off |');
    out('|---|---|---|---|---|---|---|---|');
    out(`| ${backend} | ${fmt(N)} | off | ${offSeconds.toFixed(1)} | ${fmt(N / offSeconds)} | ${cpuOffUsed[0]!.toFixed(1)} | ${cpuOffUsed[1]!.toFixed(1)} | |`);
    out(
      `| ${backend} | ${fmt(N)} | on | ${onSeconds.toFixed(1)} | ${fmt(N / onSeconds)} | ${cpuOnUsed[0]!.toFixed(1)} | ${cpuOnUsed[1]!.toFixed(1)} | ${(onSeconds / offSeconds).toFixed(2)} (target at most 1.25) |`,
    );
    out(
      `collection on: renewals and finalization until the first charge ${untilFirst.toFixed(1)} s, first to last charge ${collectSeconds.toFixed(1)} s, after the last ${afterLast.toFixed(1)} s`,
    );
    out(
      '| backend | invoices charged | s | invoices/s | ceiling: bare PaymentIntents/s, one client (8 in flight) | ratio | bare, a new client per call | ratio |',
    );
    out('|---|---|---|---|---|---|---|---|');
    const collectRate = collectSeconds > 0 ? charges / collectSeconds : NaN;
    out(
      `| ${backend} | ${fmt(charges)} | ${collectSeconds.toFixed(1)} | ${fmt(collectRate)} | ${fmt(ceilingRate)} (${fmt(ceil.shared.calls)} in ${ceil.shared.seconds.toFixed(1)} s, ${ceil.shared.failures} failed) | ${(collectRate / ceilingRate).toFixed(2)} (target at least 0.5) | ${fmt(freshRate)} | ${(collectRate / freshRate).toFixed(2)} |`,
    );
    out(
      `checked: ${fmt(exactlyOne)} paid invoices with exactly one succeeded PaymentIntent each, ${none} with none, ${more} with more; ${strays} PaymentIntents of other invoices; ` +
        `payments ${JSON.stringify(payRows)}; the declined subscription ${pd?.status}; ${fmt(ceilingIntents)} ceiling PaymentIntents apart`,
    );

    // --- The entitlement check, past due against active, the answer cache on and then off. Past due
    // within the grace period (the subscription whose card declined above: still served) and past
    // it (a subscription on a second clock whose card declines, advanced past its retry on day 3:
    // refused with PAYMENT_PAST_DUE).
    if (CHECKS) {
      const clockB = (await request(`${url}/api/v1/test_clocks`, 'POST', auth, { frozenTime: new Date(T0).toISOString(), name: 'bench past grace' })).json as {
        id: string;
      };
      const blockedCustomer = (await request(`${url}/api/v1/customers`, 'POST', auth, { externalId: 'entitlement-past-grace', testClockId: clockB.id }))
        .json as {
        id: string;
      };
      await request(`${url}/api/v1/subscriptions`, 'POST', auth, { customerId: blockedCustomer.id, offeringId });
      const [blockedAtFake, blockedCard] = await fakeCustomer(fake, 'bench past grace', 'pm_card_chargeDeclined');
      await s.insert('provider_customers', [
        {
          workspace_id: workspaceId,
          environment: 'test',
          provider: 'stripe',
          customer_id: blockedCustomer.id,
          provider_customer_id: blockedAtFake,
          payment_method: JSON.stringify({ id: blockedCard, brand: 'visa', last4: '0002', expMonth: 12, expYear: 2034 }),
          updated_at: Date.now(),
        },
      ]);
      for (const to of [T0 + 2 * HOUR, T0 + 2 * HOUR + 4 * DAY]) {
        await request(`${url}/api/v1/test_clocks/${clockB.id}/advance`, 'POST', auth, { frozenTime: new Date(to).toISOString() });
      }
      trimFake(fake);
      const subjects = [
        { label: 'active', customerId: active.customerId },
        { label: 'past due, in grace', customerId: pastDue.customerId },
        { label: 'past due, past grace', customerId: blockedCustomer.id },
        // The subject of entitlements.ts and of issue 38's figures: no test clock, an hour-aligned period.
        { label: 'reference: the demo customer', customerId: server.info.customerId },
      ];
      const check = async (cache: string) => {
        const { url: u, secretKey: key } = server.info;
        const headers = { authorization: `Bearer ${key}` };
        const target = (customerId: string) => `${u}/v1/entitlements/check?accessorId=${customerId}&productId=${productId}`;
        const answers = await Promise.all(
          subjects.map(async (x) => (await request(target(x.customerId), 'GET', `Bearer ${key}`)).json as { allowed: boolean; reason: string }),
        );
        await autocannonRun(`${u}/__bench/bare`, {}); // warm-up
        const bare = await autocannonRun(`${u}/__bench/bare`, {});
        const runs = subjects.map(() => [] as Array<Awaited<ReturnType<typeof autocannonRun>>>);
        for (let round = 0; round < 2; round++) {
          for (const [i, x] of subjects.entries()) runs[i]!.push(await autocannonRun(target(x.customerId), headers));
        }
        const mean = (xs: Array<{ rps: number }>) => xs.reduce((a, x) => a + x.rps, 0) / xs.length;
        const activeRate = mean(runs[0]!);
        for (const [i, x] of subjects.entries()) {
          const rate = mean(runs[i]!);
          out(
            `| ${backend} | ${cache} | ${x.label} | ${answers[i]!.allowed} ${answers[i]!.reason} | ${fmt(bare.rps)} | ${fmt(rate)} | ${(rate / bare.rps).toFixed(2)} | ${(rate / activeRate).toFixed(2)} | ${runs[i]!.map((r) => r.p50).join(', ')} | ${runs[i]!.map((r) => r.p99).join(', ')} |`,
          );
        }
        const expected = ['OK', 'OK', 'PAYMENT_PAST_DUE', 'OK'];
        if (answers.some((a, i) => a.reason !== expected[i]))
          problems.push(`entitlement answers ${answers.map((a) => a.reason).join(', ')}, expected ${expected.join(', ')}`);
        const non2xx = runs.flat().reduce((a, r) => a + r.non2xx, 0);
        if (non2xx > 0) problems.push(`${non2xx} entitlement checks answered other than 2xx (cache ${cache})`);
      };
      out(
        `\nEntitlement checks, ${backend}: autocannon at 50 connections, ${CHECK_SECONDS} s a run, the subjects interleaved twice (mean of the two); load average ${load()}`,
      );
      out('| backend | answer cache | subscription | answer | bare GET/s (ceiling) | checks/s | / bare | / active | p50 ms | p99 ms |');
      out('|---|---|---|---|---|---|---|---|---|---|');
      await check('on (250 ms)');
      await server.stop();
      onServer(null);
      server = await startBenchServer({ ...baseEnv, DATA_DIR: server.info.dataDir, BENCH_RESUME: '1', ENTITLEMENT_CACHE_TTL_MS: '0' });
      onServer(server);
      await check('off');
    }
    out(problems.length === 0 ? 'all checks passed' : `FAILED: ${problems.join('; ')}`);
  } finally {
    await store?.close();
    await server.stop();
    onServer(null);
    server.cleanup();
    await scratch?.drop();
    await fake.close();
  }
  return { lines, failed: problems.length > 0 };
}

async function reachable(url: string): Promise<string | null> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('select 1');
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function main() {
  let current: BenchServer | null = null;
  // The whole run is bounded: past BENCH_MAX_SECONDS the server this bench started is killed and the bench exits.
  const deadline = setTimeout(() => {
    console.error(`collection bench: over ${MAX_SECONDS} s, stopping`);
    current?.child.kill('SIGKILL');
    process.exit(1);
  }, MAX_SECONDS * 1000);
  deadline.unref();
  let failed = false;
  if (BACKENDS.includes('sqlite')) failed = (await runBackend('SQLite', null, (s) => (current = s))).failed || failed;
  if (BACKENDS.includes('postgres')) {
    const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? null;
    const why = adminUrl === null ? 'neither BENCH_DATABASE_URL nor TEST_DATABASE_URL is set' : await reachable(adminUrl);
    if (why !== null) console.log(`\nCollection, PostgreSQL: skipped (${why})`);
    else failed = (await runBackend('PostgreSQL', adminUrl, (s) => (current = s))).failed || failed;
  }
  clearTimeout(deadline);
  if (failed) process.exitCode = 1;
}

if (isMainThread) await main();
else parentPort!.postMessage(await ceiling(workerData as CeilingJob));
