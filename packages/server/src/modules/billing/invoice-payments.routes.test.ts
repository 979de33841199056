import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client } from '../../../test/helpers/seed.js';
import { createDemoWorkspace, type DemoEnvironment } from '../../demo/create-demo-workspace.js';

/** Manual payments (issue 39): money that arrived outside any provider, recorded by an operator. */

let t: TestApp;
const START = Date.UTC(2026, 0, 15, 12);
const iso = (ms: number) => new Date(ms).toISOString();

before(async () => {
  t = await createTestApp({ config: { outboundWebhookAllowPrivateAddresses: true } });
});
after(async () => t.close());
beforeEach(() => t.clock.set(START));

/** A demo workspace, and its subscription's first invoice finalized: 49.00 USD owed. */
async function openInvoice(): Promise<{ env: DemoEnvironment; api: Client; invoiceId: string }> {
  const d = await createDemoWorkspace(t.deps, { actor: { type: 'OPERATOR', id: 'test' }, source: 'cli', correlationId: 'test' });
  const env = d.environments.test;
  const api = t.seed.client(env.secretKey);
  const list = await api.get(`/api/v1/invoices?subscriptionId=${env.subscriptionId}`);
  const invoiceId = list.body.data[0].id as string;
  const finalized = await api.post(`/api/v1/invoices/${invoiceId}/finalize`, {});
  assert.equal(finalized.status, 200, JSON.stringify(finalized.body));
  assert.equal(finalized.body.amountRemaining, '49.00');
  return { env, api, invoiceId };
}

const eventsOf = async (api: Client, invoiceId: string) =>
  (await api.get(`/v1/events?targetId=${invoiceId}&limit=20`)).body.data.map((e: { eventType: string }) => e.eventType).sort();

describe('POST /api/v1/invoices/{id}/payments (a payment made outside Tollgate)', () => {
  it('partial payments add up; the one that leaves nothing owed marks the invoice paid, audited and sent to webhooks', async () => {
    const { api, invoiceId } = await openInvoice();
    const endpoint = await api.post('/api/v1/webhook-endpoints', { url: 'https://hooks.example/payments', eventTypes: ['invoice.paid'] });
    assert.equal(endpoint.status, 200, JSON.stringify(endpoint.body));
    const first = await api.post(`/api/v1/invoices/${invoiceId}/payments`, { amount: '20', reference: 'SEPA 2026-0115-77', paidAt: iso(START - 3_600_000) });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const { invoice, ...payment } = first.body;
    assert.match(payment.id, /^pay_[0-9a-z]+$/);
    assert.deepEqual(payment, {
      id: payment.id,
      object: 'payment',
      invoiceId,
      customerId: invoice.customerId,
      provider: 'manual',
      status: 'succeeded',
      amount: '20.00',
      currency: 'USD',
      reference: 'SEPA 2026-0115-77',
      paidAt: iso(START - 3_600_000),
      amountRefunded: '0.00',
      attempt: null,
      trigger: null,
      providerReference: null,
      failureCode: null,
      failureMessage: null,
      actionUrl: null,
      createdAt: iso(START),
      updatedAt: iso(START),
    });
    assert.deepEqual([invoice.status, invoice.amountPaid, invoice.amountRemaining, invoice.paidAt], ['finalized', '20.00', '29.00', null]);

    t.clock.advance(60_000);
    const rest = await api.post(`/api/v1/invoices/${invoiceId}/payments`, { amount: '29.00' });
    assert.equal(rest.status, 200, JSON.stringify(rest.body));
    assert.deepEqual(
      [rest.body.invoice.status, rest.body.invoice.amountPaid, rest.body.invoice.amountRemaining, rest.body.invoice.paidAt],
      ['paid', '49.00', '0.00', iso(START + 60_000)],
    );
    assert.equal(rest.body.reference, null);

    const listed = await api.get(`/api/v1/invoices/${invoiceId}/payments`);
    assert.deepEqual(
      listed.body.data.map((p: { amount: string }) => p.amount),
      ['20.00', '29.00'],
    );
    assert.deepEqual(await eventsOf(api, invoiceId), ['invoice.created', 'invoice.finalized', 'invoice.paid', 'payment.recorded', 'payment.recorded']);
    const messages = await t.deps.db.selectFrom('webhookMessages').selectAll().where('eventType', '=', 'invoice.paid').execute();
    assert.equal(messages.filter((m) => m.body.includes(invoiceId)).length, 1, 'invoice.paid goes to webhook endpoints, once');

    const after = await api.post(`/api/v1/invoices/${invoiceId}/payments`, { amount: '1.00' });
    assert.equal(after.status, 409);
    assert.match(after.body.errors[0].message, /is paid: a payment is recorded against a finalized or uncollectible invoice/);
  });

  it('400 names the field, and nothing is stored: more than owed, zero, too many decimals, not a decimal, paid in the future', async () => {
    const { api, invoiceId } = await openInvoice();
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ amount: '49.01' }, 'body.amount', /more than the invoice still owes \(49\.00 USD\)/],
      [{ amount: '0' }, 'body.amount', /more than 0/],
      [{ amount: '1.005' }, 'body.amount', /at most 2 decimals/],
      [{ amount: 'ten' }, 'body.amount', /not a decimal amount/],
      [{ amount: '10', paidAt: iso(START + 1_000) }, 'body.paidAt', /in the future/],
      [{ amount: 10 }, 'body.amount', /string/],
      [{}, 'body.amount', /amount/],
      [{ amount: '10', reference: 'x'.repeat(256) }, 'body.reference', /255/],
    ];
    for (const [body, field, message] of cases) {
      const res = await api.post(`/api/v1/invoices/${invoiceId}/payments`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.errors[0].field, field, JSON.stringify(res.body));
      assert.match(res.body.errors[0].message, message);
    }
    assert.deepEqual((await api.get(`/api/v1/invoices/${invoiceId}/payments`)).body.data, []);
    assert.equal((await api.get(`/api/v1/invoices/${invoiceId}`)).body.amountRemaining, '49.00');
  });

  it('409 on a draft or a void invoice; 404 for an unknown invoice or another workspace’s; a retry with the same Idempotency-Key records once', async () => {
    const { env, api, invoiceId } = await openInvoice();
    const other = await openInvoice();
    assert.equal((await other.api.post(`/api/v1/invoices/${invoiceId}/payments`, { amount: '1' })).status, 404);
    assert.equal((await other.api.get(`/api/v1/invoices/${invoiceId}/payments`)).status, 404);
    assert.equal((await api.post('/api/v1/invoices/inv_nope/payments', { amount: '1' })).status, 404);

    const key = { 'idempotency-key': 'pay-once-1' };
    const a = await api.post(`/api/v1/invoices/${invoiceId}/payments`, { amount: '5' }, key);
    const b = await api.post(`/api/v1/invoices/${invoiceId}/payments`, { amount: '5' }, key);
    assert.equal(a.status, 200);
    assert.equal(b.body.id, a.body.id);
    assert.equal((await api.get(`/api/v1/invoices/${invoiceId}/payments`)).body.data.length, 1);
    assert.equal((await api.get(`/api/v1/invoices/${invoiceId}`)).body.amountRemaining, '44.00');

    await api.post(`/api/v1/invoices/${invoiceId}/void`, {});
    const voided = await api.post(`/api/v1/invoices/${invoiceId}/payments`, { amount: '1' });
    assert.equal(voided.status, 409);
    assert.match(voided.body.errors[0].message, /is void/);

    // A renewal's draft: finalize first.
    t.clock.set(Date.UTC(2026, 1, 15, 12));
    const { runBilling } = await import('./run-billing.js');
    const { boundCredentials } = await import('../authentication/bound-credentials.js');
    await runBilling(t.deps, boundCredentials, { testClock: null });
    const drafts = (await api.get(`/api/v1/invoices?subscriptionId=${env.subscriptionId}&status=draft`)).body.data;
    assert.equal(drafts.length, 1);
    const draft = await api.post(`/api/v1/invoices/${drafts[0].id}/payments`, { amount: '1' });
    assert.equal(draft.status, 409);
    assert.match(draft.body.errors[0].message, /is a draft: finalize it before recording a payment/);
  });
});
