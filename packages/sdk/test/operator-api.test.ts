/**
 * The typed operator methods against the real server, on the demo workspace (the catalog the
 * quick start uses): every method once, typed from the generated paths (a wrong field name
 * would not compile), and TollgateError's status, errors[] and request id.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Tollgate, TollgateError } from '../src/index.js';
import { startRealServer, type RealServer } from './helpers/real-server.js';
import { createDemoWorkspace, type DemoEnvironment } from '../../server/src/demo/create-demo-workspace.js';

let server: RealServer;
let demo: DemoEnvironment;
let tg: Tollgate;

before(async () => {
  server = await startRealServer();
  const created = await createDemoWorkspace(server.t.deps, { actor: { type: 'OPERATOR', id: 'sdk-test' }, source: 'cli', correlationId: 'sdk-operator' });
  demo = created.environments.test;
  tg = new Tollgate({ apiKey: demo.secretKey, baseUrl: server.baseUrl, now: server.now, flushOnExit: false });
});
after(() => server.close());

describe('operator methods, typed from the served OpenAPI document', () => {
  it('customers: create, list, get', async () => {
    const created = await tg.customers.create({ name: 'Initech', externalId: 'initech' });
    assert.equal(created.object, 'customer');
    const listed = await tg.customers.list({ externalId: 'initech' });
    assert.deepEqual(
      listed.data.map((c) => c.id),
      [created.id],
    );
    assert.equal((await tg.customers.get(created.id)).name, 'Initech');
  });

  it('subscriptions: create, get, list, preview-change, upgrade, cancel', async () => {
    const customer = await tg.customers.create({ name: 'Globex' });
    const sub = await tg.subscriptions.create({ customerId: customer.id, offeringId: demo.offeringId });
    assert.equal(sub.status, 'ACTIVE');
    assert.equal((await tg.subscriptions.get(sub.id)).id, sub.id);
    const listed = await tg.subscriptions.list({ customerId: customer.id });
    assert.deepEqual(
      listed.data.map((s) => s.id),
      [sub.id],
    );
    const candidates = await server.t.seed.client(demo.secretKey).get(`/api/v1/subscriptions/${sub.id}/change-candidates`);
    const up = (candidates.body.data as Array<{ offeringId: string; kind: string }>).find((c) => c.kind === 'UPGRADE')!;
    const preview = await tg.subscriptions.previewChange(sub.id, { offeringId: up.offeringId });
    assert.equal(preview.action, 'UPGRADE');
    const upgraded = await tg.subscriptions.upgrade(sub.id, { offeringId: up.offeringId, expectedVersion: preview.subscriptionVersion });
    assert.ok(upgraded.invoiceId, 'an immediate upgrade is invoiced');
    const cancelled = await tg.subscriptions.cancel(sub.id, { reason: 'OTHER', applyAt: 'IMMEDIATE' });
    assert.equal(cancelled.status, 'CANCELLED');
    // The change result, typed: the subscription under `subscription`, with how it was cancelled.
    assert.deepEqual(
      [cancelled.action, cancelled.subscription.status, cancelled.subscription.cancellationDetails?.cancel_channel],
      ['CANCEL', 'CANCELLED', 'API'],
    );
  });

  it('api keys: create, rotate (the new key once), revoke', async () => {
    const created = await tg.apiKeys.create({ kind: 'WORKSPACE', name: 'sdk test', scopes: ['ingest'] });
    assert.match(created.fullToken ?? '', /^sk_test_[0-9a-f]{32}$/);
    const rotated = await tg.apiKeys.rotate(created.id);
    assert.deepEqual([rotated.status, rotated.fullToken?.length], ['ACTIVE', 40]);
    await tg.apiKeys.revoke(rotated.id);
    const err = await new Tollgate({ apiKey: rotated.fullToken ?? '-', baseUrl: server.baseUrl, flushOnExit: false }).customers.list().catch((e: unknown) => e);
    assert.equal((err as TollgateError).status, 401);
  });

  it('usage report and invoices: list, get', async () => {
    tg.track({ customerId: demo.customerId, metricName: 'api_calls', quantity: 3 });
    await tg.flush();
    const report = await tg.usage.report({ customerId: demo.customerId });
    assert.ok(report.data.some((row) => row.metricName === 'api_calls'));
    const invoices = await tg.invoices.list({ subscriptionId: demo.subscriptionId });
    assert.ok(invoices.data.length >= 1, 'the first period’s invoice');
    const first = invoices.data[0]!;
    assert.equal((await tg.invoices.get(first.id)).id, first.id);
  });

  it('invoices: record a payment made outside Tollgate (idempotent), list its payments; more than owed is a TollgateError naming body.amount', async () => {
    const [draft] = (await tg.invoices.list({ subscriptionId: demo.subscriptionId, status: 'draft' })).data;
    assert.ok(draft, 'the first period’s draft');
    const finalized = await fetch(`${server.baseUrl}/api/v1/invoices/${draft.id}/finalize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.secretKey}` },
    });
    assert.equal(finalized.status, 200);
    const paid = await tg.invoices.recordPayment(draft.id, { amount: '10', reference: 'wire 42' }, { idempotencyKey: 'sdk-pay-1' });
    assert.deepEqual([paid.object, paid.amount, paid.provider, paid.invoice.amountPaid], ['payment', '10.00', 'manual', '10.00']);
    const again = await tg.invoices.recordPayment(draft.id, { amount: '10', reference: 'wire 42' }, { idempotencyKey: 'sdk-pay-1' });
    assert.equal(again.id, paid.id);
    assert.deepEqual(
      (await tg.invoices.payments(draft.id)).data.map((p) => p.id),
      [paid.id],
    );
    const err = await tg.invoices.recordPayment(draft.id, { amount: '1000000' }).catch((e: unknown) => e);
    assert.ok(err instanceof TollgateError);
    assert.deepEqual([err.status, err.errors[0]!.field], [400, 'body.amount']);
    // Retry now needs a payment provider: without Stripe connected, a TollgateError saying so.
    const retry = await tg.invoices.attemptPayment(draft.id).catch((e: unknown) => e);
    assert.ok(retry instanceof TollgateError);
    assert.equal(retry.status, 409);
    assert.match(retry.errors[0]!.message, /Stripe is not connected/);
  });

  it('credits: grant (once per idempotency key), list, get, ledger, balance, void, settings', async () => {
    const customer = await tg.customers.create({ name: 'Hooli' });
    const grant = await tg.credits.grant({ customerId: customer.id, amount: '20', currency: 'USD', priority: 10 }, { idempotencyKey: 'sdk-grant-1' });
    assert.deepEqual([grant.object, grant.amount, grant.remaining, grant.status, grant.priority], ['credit_grant', '20.00', '20.00', 'active', 10]);
    assert.equal(
      (await tg.credits.grant({ customerId: customer.id, amount: '20', currency: 'USD', priority: 10 }, { idempotencyKey: 'sdk-grant-1' })).id,
      grant.id,
    );
    assert.deepEqual(
      (await tg.credits.listGrants({ customerId: customer.id })).data.map((g) => g.id),
      [grant.id],
    );
    assert.equal((await tg.credits.getGrant(grant.id)).id, grant.id);
    assert.deepEqual(
      (await tg.credits.ledger(customer.id, { currency: 'USD' })).data.map((e) => [e.type, e.amount, e.balanceAfter]),
      [['grant', '20.00', '20.00']],
    );
    assert.deepEqual(
      (await tg.credits.balance(customer.id)).balances.map((b) => [b.currency, b.balance]),
      [['USD', '20.00']],
    );
    const settings = await tg.credits.putSettings(customer.id, 'USD', { lowBalanceThreshold: '5', autoTopUp: { threshold: '2', amount: '10' } });
    assert.deepEqual([settings.currency, settings.lowBalanceThreshold, settings.autoTopUp?.amount], ['USD', '5.00', '10.00']);
    assert.deepEqual(
      (await tg.credits.settings(customer.id)).data.map((x) => x.currency),
      ['USD'],
    );
    const voided = await tg.credits.voidGrant(grant.id);
    assert.deepEqual([voided.status, voided.remaining], ['voided', '0.00']);
    const again = await tg.credits.voidGrant(grant.id).catch((e: unknown) => e);
    assert.ok(again instanceof TollgateError);
    assert.equal(again.status, 409);
    const bad = await tg.credits.grant({ customerId: customer.id, amount: '0.001', currency: 'USD' }).catch((e: unknown) => e);
    assert.ok(bad instanceof TollgateError);
    assert.deepEqual([bad.status, bad.errors[0]!.field], [400, 'body.amount']);
  });

  it('TollgateError carries the status, the envelope’s errors[] (code, message, field) and X-Request-Id', async () => {
    const err = await tg.subscriptions.create({ customerId: 'cus_nobody', offeringId: demo.offeringId }).catch((e: unknown) => e);
    assert.ok(err instanceof TollgateError);
    assert.equal(err.status, 404);
    assert.equal(err.errors[0]!.code, 'NOT_FOUND');
    assert.equal(typeof err.errors[0]!.message, 'string');
    assert.match(err.requestId ?? '', /^req_/);
  });
});
