/**
 * Collection across a crash, with real `tollgate serve` processes and the Stripe fake: the server is
 * SIGKILLed after Stripe charged but before the server heard back (the fake carries out the charge
 * and never answers, so the answer is lost exactly as a crash between Stripe's answer and our
 * commit loses it). After the restart every invoice is paid, each by exactly one charge: the
 * pending attempts are sent again under their own idempotency keys (Stripe replays the charge it
 * made), and the invoices not yet tried are charged once. Two of the invoices are purchases of
 * prepaid credits: their grants become active once each, with one top-up entry.
 * SQLite pass: a database file; PostgreSQL pass: a scratch database.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { backend } from './helpers/test-app.js';
import { Scratch, runCli, type ServeProcess } from './helpers/processes.js';
import { FAKE_STRIPE_SECRET_KEY, FAKE_STRIPE_WEBHOOK_SECRET, StripeFake } from './helpers/stripe-fake.js';

/** Polls `probe` until it holds; the bound is what a loaded machine may need, never a speed asserted. */
async function until(what: string, probe: () => Promise<boolean>, boundMs = 120_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${boundMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Invoices of the run; each charged while the first server lives or after the restart. */
const N = 20;
/** Charges carried out by Stripe whose answers never reach the first server. */
const LOST = 8;

describe(`collection: a SIGKILL between Stripe's charge and the commit (${backend})`, () => {
  const scratch = new Scratch('collect');
  let fake: StripeFake | null = null;
  after(async () => {
    await fake?.close();
    await scratch.cleanup();
  });

  it(
    `${N} invoices, ${LOST} of them charged at Stripe when the server dies: after the restart each is paid by exactly one charge`,
    { timeout: 300_000 },
    async () => {
      fake = await StripeFake.start();
      const dataDir = path.join(scratch.tempDir(), 'data');
      const databaseUrl = backend === 'postgres' ? (await scratch.schema({ migrated: true })).url : null;
      const env: Record<string, string> = {
        DATA_DIR: dataDir,
        SEED_DEMO: 'false',
        STRIPE_API_BASE: fake.apiBase,
        PAYMENT_RECONCILE_AFTER_MS: '1000',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      };
      const made = await runCli(['demo', '--json'], env);
      assert.equal(made.status, 0, made.stderr);
      const demo = JSON.parse(made.stdout) as { environments: { test: { secretKey: string; offeringId: string } } };
      const key = demo.environments.test.secretKey;

      // The first server's billing run happens at its start only (nothing is due then), and it waits
      // for Stripe longer than it lives: the test decides which charges are in flight when it dies.
      const first: ServeProcess = await scratch.serve({ ...env, BILLING_INTERVAL_MS: '3600000', STRIPE_TIMEOUT_MS: '80000' }, 'before the crash');
      const connected = await first.call('PUT', '/api/v1/payment_providers/stripe', key, {
        secretKey: FAKE_STRIPE_SECRET_KEY,
        webhookSecret: FAKE_STRIPE_WEBHOOK_SECRET,
      });
      assert.ok([200, 201].includes(connected.status), JSON.stringify(connected.body));
      fake.setWebhookEndpoint(`${first.address}${connected.body.webhookUrl}`, FAKE_STRIPE_WEBHOOK_SECRET);
      // Every customer has a card.
      const customers: string[] = [];
      for (let k = 0; k < N; k++) {
        const c = await first.call('POST', '/api/v1/customers', key, { name: `Crash ${k}`, externalId: `crash-${k}` });
        assert.equal(c.status, 200, JSON.stringify(c.body));
        const session = await first.call('POST', `/api/v1/customers/${c.body.id}/payment_method_sessions`, key, {
          successUrl: 'https://seller.example/ok',
          cancelUrl: 'https://seller.example/no',
        });
        assert.equal(session.status, 200, JSON.stringify(session.body));
        fake.completeSetupSession(session.body.id, 'pm_card_visa');
        customers.push(c.body.id);
      }
      for (const d of await fake.deliverWebhooks()) assert.equal(d.status, 200, JSON.stringify(d));

      // N first invoices, finalized: each is due for its automatic charge.
      const invoiceIds: string[] = [];
      for (const customerId of customers) {
        const s = await first.call('POST', '/api/v1/subscriptions', key, { customerId, offeringId: demo.environments.test.offeringId });
        assert.equal(s.status, 200, JSON.stringify(s.body));
        const invoice = (await first.call('GET', `/api/v1/invoices?subscriptionId=${s.body.id}`, key)).body.data[0];
        const finalized = await first.call('POST', `/api/v1/invoices/${invoice.id}/finalize`, key);
        assert.deepEqual([finalized.status, finalized.body.nextPaymentAttempt !== null], [200, true], JSON.stringify(finalized.body));
        invoiceIds.push(invoice.id);
      }
      // Two purchases of prepaid credits (issue 41): invoices collected like any other, whose grants
      // become active with the payment. The first is among the lost charges; the second is charged after the restart.
      const purchases: Array<{ grantId: string; customerId: string }> = [];
      for (const customerId of [customers[0]!, customers[N - 1]!]) {
        const bought = await first.call('POST', '/api/v1/credit_grants', key, {
          customerId,
          amount: '50.00',
          cost: '45.00',
          currency: 'USD',
          source: 'purchased',
        });
        assert.deepEqual([bought.status, bought.body.status], [200, 'pending'], JSON.stringify(bought.body));
        purchases.push({ grantId: bought.body.id, customerId });
        if (purchases.length === 1) invoiceIds.unshift(bought.body.invoiceId);
        else invoiceIds.push(bought.body.invoiceId);
      }
      // LOST of them charged now: Stripe carries each charge out and its answer never comes back.
      fake.failNext('timeout-after-execute', { method: 'POST', path: '/v1/payment_intents' }, LOST);
      const inFlight = invoiceIds.slice(0, LOST).map((id) => first.call('POST', `/api/v1/invoices/${id}/attempt_payment`, key).catch(() => null));
      await until(`Stripe charged ${LOST} invoices whose answers never came`, async () => fake!.succeededPaymentIntents().length >= LOST);
      process.kill(first.pid!, 'SIGKILL');
      assert.equal((await first.exited).signal, 'SIGKILL');
      await Promise.all(inFlight);
      assert.equal(fake.succeededPaymentIntents().length, LOST);

      // The restarted server's billing runs charge the rest and reconcile the lost ones.
      const second = await scratch.serve({ ...env, BILLING_INTERVAL_MS: '1000' }, 'after the restart');
      await until(`all ${N} invoices paid`, async () => {
        for (const id of invoiceIds) if ((await second.call('GET', `/api/v1/invoices/${id}`, key)).body.status !== 'paid') return false;
        return true;
      });

      for (const id of invoiceIds) {
        const invoice = (await second.call('GET', `/api/v1/invoices/${id}`, key)).body;
        assert.deepEqual([invoice.status, invoice.amountPaid, invoice.amountRemaining], ['paid', invoice.total, '0.00'], id);
        assert.equal(fake.succeededPaymentIntents({ invoiceId: id }).length, 1, `${id}: exactly one charge at Stripe`);
        const payments = (await second.call('GET', `/api/v1/invoices/${id}/payments`, key)).body.data;
        assert.deepEqual(
          payments.map((p: { status: string; attempt: number; trigger: string }) => [p.attempt, p.status, p.trigger]),
          [[1, 'succeeded', invoiceIds.indexOf(id) < LOST ? 'manual_retry' : 'automatic']],
          `${id}: one attempt, succeeded`,
        );
        assert.equal(payments[0].providerReference, fake.succeededPaymentIntents({ invoiceId: id })[0]!.id);
      }
      assert.equal(fake.paymentIntents.size, invoiceIds.length, 'the lost charges were found again, not made twice');
      // Each purchase's credits are active once, with one top-up entry: never twice, never lost.
      for (const { grantId, customerId } of purchases) {
        const grant = (await second.call('GET', `/api/v1/credit_grants/${grantId}`, key)).body;
        assert.deepEqual([grant.status, grant.remaining], ['active', '50.00'], grantId);
        const ledger = (await second.call('GET', `/api/v1/customers/${customerId}/credit_ledger?currency=USD`, key)).body.data;
        assert.deepEqual(
          ledger.map((e: { type: string; amount: string; grantId: string }) => [e.type, e.amount, e.grantId]),
          [['top_up', '50.00', grantId]],
          customerId,
        );
      }
      assert.equal((await second.stop()).code, 0);
    },
  );
});
